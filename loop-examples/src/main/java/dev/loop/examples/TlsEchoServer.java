package dev.loop.examples;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.examples.io.ServerHost;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.TlsContexts;
import dev.loop.net.TlsOptions;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code tls-echo-server [--port P] [--backend NAME] [--host H] [--cert PEM --key PEM] [--http]}:
 * sends back every byte it receives over TLS, on any backend. Without {@code --cert}/{@code --key}
 * it makes a self-signed certificate for {@code localhost} and {@code 127.0.0.1} and prints where,
 * so real clients can verify it:
 *
 * <pre>
 * openssl s_client -connect 127.0.0.1:8443 -CAfile CERT.pem
 * curl --cacert CERT.pem https://localhost:8443/      (with --http)
 * </pre>
 *
 * <p>With {@code --http} it answers HTTP/1.1 requests instead (ALPN {@code http/1.1}, keep-alive):
 * a minimal HTTPS endpoint. Runs until SIGTERM or Ctrl-C.
 */
public final class TlsEchoServer {
    /** Longest request line or header in {@code --http} mode. */
    static final int MAX_LINE = 8 * 1024;

    private TlsEchoServer() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        int port = Integer.parseInt(Main.option(args, "--port", "8443"));
        String backend = Main.option(args, "--backend", null);
        InetAddress host = InetAddress.getByName(Main.option(args, "--host", "127.0.0.1"));
        String cert = Main.option(args, "--cert", null);
        String key = Main.option(args, "--key", null);
        boolean http = Main.flag(args, "--http");
        if ((cert == null) != (key == null)) {
            err.println("tls-echo-server: --cert and --key go together (PEM certificate chain, PKCS#8 PEM key)");
            return 2;
        }
        if (cert == null) {
            SelfSignedCertificate made = SelfSignedCertificate.generate(30);
            cert = made.certificate().toString();
            key = made.privateKey().toString();
            out.println("self-signed certificate for localhost and 127.0.0.1: " + cert);
        }
        TlsOptions tls = TlsOptions.of(TlsContexts.fromPem(Path.of(cert), Path.of(key)));
        LoopOptions options = backend == null ? LoopOptions.defaults() : LoopOptions.defaults().withBackend(backend);
        String caFile = cert;
        try (Loop loop = Loops.open(options)) {
            Server server = start(loop, new InetSocketAddress(host, port), tls, http);
            String signal = ServerHost.runUntilSignal(loop, () -> {
                out.println("TLS " + (http ? "HTTPS" : "echo") + " server on " + server.localAddress() + ", backend "
                        + loop.backendName() + "; try: openssl s_client -connect " + host.getHostAddress() + ":"
                        + server.localAddress().getPort() + " -CAfile " + caFile);
                out.flush();
            }, server::close);
            out.println("stopping on SIG" + signal);
            out.flush();
        }
        return 0;
    }

    /** Listens on {@code address}; the server runs while the loop does. */
    public static Server start(Loop loop, InetSocketAddress address, TlsOptions tls, boolean http) throws Exception {
        return Net.listen(loop, address, ServerOptions.defaults(), http ? tls.withApplicationProtocols("http/1.1") : tls,
                c -> {
                    if (http) {
                        answerRequests(c);
                    } else {
                        c.setHandler(ECHO);
                    }
                });
    }

    /** Push style, as the plaintext echo server: the TLS layer is invisible here. */
    private static final ConnectionHandler ECHO = (conn, data) -> {
        conn.write(data);
        if (!conn.isWritable()) {
            conn.pauseReading(); // a peer that sends but does not read: wait until our queue drains
            conn.drain().onDone(f -> conn.resumeReading());
        }
    };

    /** One request at a time: the head line by line, then a small answer naming what TLS agreed on. */
    private static void answerRequests(Connection c) {
        readHead(c, null, true);
    }

    private static void readHead(Connection c, String requestLine, boolean keepAlive) {
        c.readLine(MAX_LINE).onDone(f -> {
            if (!f.isSuccess() || f.result() == null) {
                c.close();
                return;
            }
            String line = f.result();
            if (requestLine == null) {
                readHead(c, line, !line.endsWith("HTTP/1.0"));
            } else if (!line.isEmpty()) {
                String h = line.toLowerCase(Locale.ROOT);
                boolean close = h.startsWith("connection:") && h.contains("close");
                boolean open = h.startsWith("connection:") && h.contains("keep-alive");
                readHead(c, requestLine, !close && (keepAlive || open));
            } else {
                String body = "hello over " + c.tls().protocol() + " (" + c.tls().cipherSuite() + ") from loop: "
                        + requestLine + "\n";
                byte[] b = body.getBytes(StandardCharsets.UTF_8);
                String head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + b.length
                        + (keepAlive ? "" : "\r\nConnection: close") + "\r\n\r\n";
                c.write(head.getBytes(StandardCharsets.US_ASCII));
                c.write(b);
                if (keepAlive) {
                    c.drain().onDone(d -> readHead(c, null, true));
                } else {
                    c.close();
                }
            }
        });
    }
}
