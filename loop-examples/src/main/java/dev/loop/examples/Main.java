package dev.loop.examples;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * Runs one example by name. From the repository root, after
 * {@code mvn -B -pl loop-examples -am install -DskipTests}:
 *
 * <pre>
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="echo-server --port 8888 --backend select"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="udp-echo --port 9999 --backend epoll"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="unix-echo --path /tmp/loop-echo.sock --backend epoll"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="tls-echo-server --port 8443 --backend epoll"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="http-get http://127.0.0.1:8000/"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="countdown 5"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="producer-consumer 10"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="http-server --port 8080 --dir ."
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="resp-server --port 6379"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="tcp-proxy --listen 9000 --to localhost:8080"
 * mvn -B -q -pl loop-examples validate exec:exec -Dexample="run --timeout-ms 5000 -- ls -l /"
 * </pre>
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the example named by {@code args[0]}; returns the process exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String name = args.length == 0 ? "help" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        return switch (name) {
            case "echo-server" -> EchoServer.run(rest, out, err);
            case "udp-echo" -> UdpEcho.run(rest, out, err);
            case "unix-echo" -> UnixEcho.run(rest, out, err);
            case "tls-echo-server" -> TlsEchoServer.run(rest, out, err);
            case "http-get" -> HttpGet.run(rest, out, err);
            case "countdown" -> Countdown.run(rest, out, err);
            case "producer-consumer" -> ProducerConsumer.run(rest, out, err);
            case "http-server" -> dev.loop.examples.http.HttpServer.run(rest, out, err);
            case "resp-server" -> dev.loop.examples.resp.RespServer.run(rest, out, err);
            case "demo" -> Demo.run(rest, out, err);
            case "tcp-proxy" -> TcpProxy.run(rest, out, err);
            case "run" -> RunCommand.run(rest, out, err);
            default -> {
                err.println("usage: Main NAME [ARGS]; NAME is one of:");
                err.println("  echo-server [--port P] [--backend NAME] [--prefix]   echo until interrupted");
                err.println("  udp-echo [--port P] [--backend NAME]                 answer each datagram to its sender");
                err.println("  unix-echo [--path PATH] [--backend NAME] [--prefix]  echo on a Unix domain socket");
                err.println("  tls-echo-server [--port P] [--backend NAME] [--cert PEM --key PEM] [--http]");
                err.println("                                                      echo (or answer HTTPS) over TLS");
                err.println("  http-get URL                                        HTTP/1.0 GET: status line, body size");
                err.println("  countdown [N]                                       count down N seconds");
                err.println("  producer-consumer [N]                               N items through a queue");
                err.println("  demo [--scale-ms MS]                                countdown/countup and producer/consumer tasks");
                err.println("  http-server [--port P] [--backend B] [--loops N] [--dir D] [--metrics]   HTTP/1.1: /plaintext, /json, /echo, files, /metrics");
                err.println("  resp-server [--port P] [--backend B] [--loops N] [--timers T] the Redis protocol, for redis-cli");
                err.println("  tcp-proxy --listen P --to HOST:PORT [--backend B] [--drain-ms MS]  by name, both ways, with backpressure");
                err.println("  run [--timeout-ms N] [--backend B] -- COMMAND [ARGS]  a child's output streamed, its status ours");
                yield "help".equals(name) ? 0 : 2;
            }
        };
    }

    /** The value after {@code flag} in {@code args}, or {@code fallback}. */
    static String option(String[] args, String flag, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(flag)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    static boolean flag(String[] args, String flag) {
        return Arrays.asList(args).contains(flag);
    }
}
