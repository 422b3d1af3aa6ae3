package dev.loop.examples;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.examples.io.ServerHost;
import dev.loop.net.Server;
import dev.loop.net.Unix;
import java.io.IOException;
import java.io.PrintStream;
import java.net.UnixDomainSocketAddress;

/**
 * {@code unix-echo [--path PATH] [--backend NAME] [--prefix] [--replace-stale]}: the echo server
 * of {@link EchoServer} on a Unix domain socket: every byte back, or with {@code --prefix} each
 * line answered with {@code "Got: "}. A stale socket file (left by a server that crashed) is
 * replaced only with {@code --replace-stale}; the file is removed when the server stops. Runs
 * until SIGTERM or Ctrl-C, then removes the file, closes and exits with 0. Try it with {@code socat - UNIX-CONNECT:/tmp/loop-echo.sock}.
 */
public final class UnixEcho {
    private UnixEcho() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        UnixDomainSocketAddress path = UnixDomainSocketAddress.of(Main.option(args, "--path", "/tmp/loop-echo.sock"));
        String backend = Main.option(args, "--backend", "select");
        boolean prefix = Main.flag(args, "--prefix");
        Unix.Stale stale = Main.flag(args, "--replace-stale") ? Unix.Stale.REPLACE : Unix.Stale.FAIL;
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            Server server = start(loop, path, prefix, stale);
            // closing the listener removes the socket file; closing the loop closes the connections
            String signal = ServerHost.runUntilSignal(loop, () -> {
                out.println("unix echo on " + server.localSocketAddress() + ", backend " + loop.backendName()
                        + (prefix ? ", answering lines with \"Got: \"" : ""));
                out.flush();
            }, server::close);
            out.println("stopping on SIG" + signal);
            out.flush();
        }
        return 0;
    }

    /** Listens on {@code path}; the server runs while the loop does. */
    public static Server start(Loop loop, UnixDomainSocketAddress path, boolean prefix, Unix.Stale stale)
            throws IOException {
        return Unix.listen(loop, path, EchoServer.options(prefix, EchoServer.READ_TIMEOUT), stale,
                EchoServer.onAccept(loop, prefix));
    }
}
