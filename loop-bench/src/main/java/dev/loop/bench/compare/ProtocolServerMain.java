package dev.loop.bench.compare;

import dev.loop.examples.http.HttpServer;
import dev.loop.examples.resp.RespServer;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Our protocol servers under test, in a process of their own:
 * {@code ProtocolServerMain --server http|resp --backend B [--timers T] [--loops N]}. Starts the
 * example's {@code http-server} or {@code resp-server} on one loop (or a group of N) on 127.0.0.1 and a free port, prints
 * {@code LISTENING <port>} (or {@code UNSUPPORTED <why>} and exits with status 3 when the backend
 * cannot serve sockets here), and exits when its standard input ends, so it never outlives the
 * command that started it. The same servers the examples' README runs by hand, started the way
 * {@link ServerRunner} expects.
 */
public final class ProtocolServerMain {
    private ProtocolServerMain() {
    }

    public static void main(String[] args) throws Exception {
        String server = null;
        String backend = null;
        String timers = null;
        int loops = 1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--server" -> server = args[i + 1];
                case "--backend" -> backend = args[i + 1];
                case "--timers" -> timers = args[i + 1];
                case "--loops" -> loops = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (server == null || backend == null || !(server.equals("http") || server.equals("resp"))) {
            System.err.println("usage: ProtocolServerMain --server http|resp --backend B [--timers T] [--loops N]");
            System.exit(2);
        }
        EchoServerMain.exitWhenStdinCloses();
        PrintStream out = System.out;
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        AutoCloseable running;
        int port;
        try {
            if (server.equals("http")) {
                HttpServer s = HttpServer.start(HttpServer.Config.defaults().withAddress(any).withBackend(backend)
                        .withTimers(timers).withLoops(loops));
                running = s;
                port = s.address().getPort();
                LoopProbe.register(s.loops());
            } else {
                RespServer s = RespServer.start(RespServer.Config.defaults().withAddress(any).withBackend(backend)
                        .withTimers(timers).withLoops(loops));
                running = s;
                port = s.address().getPort();
                LoopProbe.register(s.loops());
            }
        } catch (UnsupportedOperationException e) {
            out.println("UNSUPPORTED " + e.getMessage());
            out.flush();
            System.exit(EchoServerMain.UNSUPPORTED_EXIT);
            return;
        }
        out.println("LISTENING " + port);
        out.flush();
        // the server runs on its loop's thread until the standard input ends (halt) or it is killed
        try (running) {
            Thread.currentThread().join();
        }
    }
}
