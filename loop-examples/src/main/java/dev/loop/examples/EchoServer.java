package dev.loop.examples;

import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * {@code echo-server [--port P] [--backend NAME] [--host H] [--prefix]}: sends back every byte it
 * receives, or, with {@code --prefix}, answers each line with {@code "Got: "} and the line. Runs
 * until interrupted (Ctrl-C).
 *
 * <p>Without {@code --backend} it uses {@code select}: the epoll backend has no sockets yet.
 */
public final class EchoServer {
    /** Longest line answered in {@code --prefix} mode; a longer one closes the connection. */
    static final int MAX_LINE = 64 * 1024;

    private EchoServer() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        int port = Integer.parseInt(Main.option(args, "--port", "8888"));
        String backend = Main.option(args, "--backend", "select");
        InetAddress host = InetAddress.getByName(Main.option(args, "--host", "127.0.0.1"));
        boolean prefix = Main.flag(args, "--prefix");
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            Server server = start(loop, new InetSocketAddress(host, port), prefix);
            out.println("echo server on " + server.localAddress() + ", backend " + loop.backendName()
                    + (prefix ? ", answering lines with \"Got: \"" : ""));
            out.flush();
            loop.runForever();
        }
        return 0;
    }

    /** Listens on {@code address}; the server runs while the loop does. */
    public static Server start(Loop loop, InetSocketAddress address, boolean prefix) throws IOException {
        return Net.listen(loop, address, c -> {
            if (prefix) {
                answerLines(c);
            } else {
                c.setHandler(ECHO);
            }
        });
    }

    /** Push style: every chunk goes straight back (write copies what the kernel cannot take yet). */
    private static final ConnectionHandler ECHO = (conn, data) -> {
        conn.write(data);
        if (!conn.isWritable()) {
            // a peer that sends but does not read: stop reading it until our queue drains
            conn.pauseReading();
            conn.drain().onDone(f -> conn.resumeReading());
        }
    };

    /** Pull style: one line at a time, one answer per line. */
    private static void answerLines(Connection c) {
        c.readLine(MAX_LINE).onDone(f -> {
            if (!f.isSuccess() || f.result() == null) {
                c.close();
                return;
            }
            ByteBuffer answer = StandardCharsets.UTF_8.encode("Got: " + f.result() + "\n");
            c.write(answer);
            c.drain().onDone(d -> answerLines(c));
        });
    }
}
