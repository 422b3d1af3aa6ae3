package dev.loop.examples;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.examples.io.ServerHost;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.LimitExceededException;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * {@code echo-server [--port P] [--backend NAME] [--host H] [--prefix]}: sends back every byte it
 * receives (a push-style handler), or, with {@code --prefix}, answers each line with
 * {@code "Got: "} and the line (a task per connection, sequential code with ordinary
 * {@code try}/{@code catch}). Runs until SIGTERM or Ctrl-C, then stops accepting, closes and exits with 0.
 *
 * <p>Without {@code --backend} it uses {@code select}.
 */
public final class EchoServer {
    /** Longest line answered in {@code --prefix} mode; a longer one closes the connection. */
    static final int MAX_LINE = 64 * 1024;
    /** How long {@code --prefix} mode waits for a line before it says goodbye. */
    static final Duration READ_TIMEOUT = Duration.ofMinutes(5);

    private EchoServer() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        int port = Integer.parseInt(Main.option(args, "--port", "8888"));
        String backend = Main.option(args, "--backend", "select");
        InetAddress host = InetAddress.getByName(Main.option(args, "--host", "127.0.0.1"));
        boolean prefix = Main.flag(args, "--prefix");
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            Server server = start(loop, new InetSocketAddress(host, port), prefix);
            String signal = ServerHost.runUntilSignal(loop, () -> {
                out.println("echo server on " + server.localAddress() + ", backend " + loop.backendName()
                        + (prefix ? ", answering lines with \"Got: \"" : ""));
                out.flush();
            }, server::close);
            out.println("stopping on SIG" + signal);
            out.flush();
        }
        return 0;
    }

    /** Listens on {@code address}; the server runs while the loop does. */
    public static Server start(Loop loop, InetSocketAddress address, boolean prefix) throws IOException {
        return start(loop, address, prefix, READ_TIMEOUT);
    }

    /** {@link #start(Loop, InetSocketAddress, boolean)}, waiting at most {@code readTimeout} for a line. */
    public static Server start(Loop loop, InetSocketAddress address, boolean prefix, Duration readTimeout)
            throws IOException {
        return Net.listen(loop, address, options(prefix, readTimeout), onAccept(loop, prefix));
    }

    /** The server's options: a read timeout on accepted connections in {@code --prefix} mode. */
    static ServerOptions options(boolean prefix, Duration readTimeout) {
        return prefix ? ServerOptions.defaults().withAccepted(ConnectionOptions.defaults().withReadTimeout(readTimeout))
                : ServerOptions.defaults();
    }

    /** What the server does with each connection, over TCP or a Unix domain socket alike. */
    static Consumer<Connection> onAccept(Loop loop, boolean prefix) {
        return prefix ? c -> loop.spawn(() -> answerLines(c)) : c -> c.setHandler(ECHO);
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

    /**
     * Pull style, in a task: one line at a time, one answer per line. The awaits declare
     * {@code IOException}, so each failure is caught by its type (docs/adr/0007).
     */
    private static Void answerLines(Connection c) {
        try {
            String line;
            while ((line = Async.await(c.readLine(MAX_LINE), IOException.class)) != null) {
                // the write's future is done once the kernel took the bytes: a slow reader slows us
                Async.await(c.write(("Got: " + line + "\n").getBytes(StandardCharsets.UTF_8)), IOException.class);
            }
        } catch (SocketTimeoutException idle) {
            c.write("Bye: no line for a while\n".getBytes(StandardCharsets.UTF_8));
        } catch (LimitExceededException tooLong) {
            c.write(("Bye: a line is longer than " + MAX_LINE + " bytes\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException gone) {
            // the peer reset or the loop closed the connection: nobody to answer
        } finally {
            c.close(); // sends what is queued, then closes
        }
        return null;
    }
}
