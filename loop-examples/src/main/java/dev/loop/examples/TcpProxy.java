package dev.loop.examples;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.examples.io.ServerHost;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * {@code tcp-proxy --listen P --to HOST:PORT [--host H] [--backend NAME] [--drain-ms MS]}: accepts
 * on {@code H:P} (127.0.0.1 by default) and connects each client to {@code HOST:PORT} by name
 * (Happy Eyeballs over the name's IPv6 and IPv4 addresses), then copies bytes both ways. Not
 * thread-safe: loop thread only.
 *
 * <p>Backpressure: when one side is not {@linkplain Connection#isWritable() writable} (its peer
 * reads slower than the other side sends), reading from the other side pauses until it
 * {@linkplain Connection#drain() drains}, so the proxy holds at most about a high watermark plus
 * one read per direction, however fast one side and slow the other. A half-close passes through:
 * the end of one side's stream becomes a {@code shutdownOutput} on the other, which can still
 * answer; once both directions ended, both connections close. A reset passes through as a reset.
 *
 * <p>Stopping (Ctrl-C or SIGTERM): the server stops accepting and the open connections get
 * {@code --drain-ms} (10 s by default) to finish before they are closed ({@link Server#shutdown}).
 */
public final class TcpProxy {
    static final Duration DEFAULT_DRAIN = Duration.ofSeconds(10);

    private final Loop loop;
    private final Server server;
    private final String host;
    private final int port;
    private long accepted;
    private long upstreamFailures;
    private Throwable lastUpstreamFailure;
    private long pauses;
    private long maxQueued;

    private TcpProxy(Loop loop, String host, int port, InetSocketAddress listen) throws IOException {
        this.loop = loop;
        this.host = host;
        this.port = port;
        this.server = Net.listen(loop, listen, this::accept);
    }

    /** Proxies {@code listen} to {@code host:port} on {@code loop} (call before it runs, or on its thread). */
    public static TcpProxy start(Loop loop, InetSocketAddress listen, String host, int port) throws IOException {
        return new TcpProxy(loop, host, port, listen);
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        String to = Main.option(args, "--to", null);
        int colon = to == null ? -1 : to.lastIndexOf(':');
        if (colon <= 0 || colon == to.length() - 1 || !Main.flag(args, "--listen")) {
            err.println("usage: tcp-proxy --listen PORT --to HOST:PORT [--host H] [--backend NAME] [--drain-ms MS]");
            return 2;
        }
        String host = to.substring(0, colon);
        int port = Integer.parseInt(to.substring(colon + 1));
        InetSocketAddress listen = new InetSocketAddress(Main.option(args, "--host", "127.0.0.1"),
                Integer.parseInt(Main.option(args, "--listen", "0")));
        Duration drain = Duration.ofMillis(Long.parseLong(Main.option(args, "--drain-ms", String.valueOf(DEFAULT_DRAIN.toMillis()))));
        String backend = Main.option(args, "--backend", null);
        LoopOptions options = backend == null ? LoopOptions.defaults() : LoopOptions.defaults().withBackend(backend);
        try (Loop loop = Loops.open(options)) {
            TcpProxy proxy = start(loop, listen, host, port);
            String signal = ServerHost.runUntilSignal(loop, () -> {
                out.println("tcp-proxy on " + proxy.address() + " to " + host + ":" + port + ", backend "
                        + loop.backendName());
                out.flush();
            }, () -> { });
            out.println("stopping on SIG" + signal + ": open connections get " + drain.toMillis() + " ms to finish");
            out.flush();
            loop.runUntilComplete(proxy.shutdown(drain));
            out.println(proxy.summary());
        }
        return 0;
    }

    private void accept(Connection client) {
        accepted++;
        // nothing is read from the client until a handler is set: it waits while upstream connects
        LoopFuture<Connection> upstream = Net.connect(loop, host, port, ConnectionOptions.defaults());
        client.closeFuture().onDone(f -> upstream.cancel("the client left"));
        upstream.onDone(f -> {
            if (f.isSuccess()) {
                join(client, f.result());
            } else if (!f.isCancelled()) {
                upstreamFailures++; // counted, not logged: a dead upstream would log once per client
                lastUpstreamFailure = f.exception();
                client.abort();
            }
        });
    }

    private void join(Connection client, Connection upstream) {
        if (!client.isOpen()) {
            upstream.close();
            return;
        }
        int[] ended = {0}; // directions whose stream ended, shared by the two pumps
        client.setHandler(new Pump(upstream, ended));
        upstream.setHandler(new Pump(client, ended));
    }

    /** Copies what one side reads into {@code to}. */
    private final class Pump implements ConnectionHandler {
        private final Connection to;
        private final int[] ended;

        Pump(Connection to, int[] ended) {
            this.to = to;
            this.ended = ended;
        }

        @Override
        public void onData(Connection from, ByteBuffer data) {
            to.write(data); // copies what the kernel does not take at once
            maxQueued = Math.max(maxQueued, to.queuedBytes());
            if (!to.isWritable()) {
                pauses++;
                from.pauseReading();
                to.drain().onDone(f -> {
                    if (f.isSuccess() && from.isOpen()) {
                        from.resumeReading();
                    }
                });
            }
        }

        @Override
        public void onEof(Connection from) {
            to.shutdownOutput(); // after what is queued: the other side reads the end, and may answer
            if (++ended[0] == 2) {
                from.close();
                to.close();
            }
        }

        @Override
        public void onClosed(Connection from, Throwable error) {
            if (error != null) {
                to.abort();
            } else {
                to.close();
            }
        }
    }

    /** Stops accepting; open connections get {@code drain} to finish, then are closed. */
    public LoopFuture<Void> shutdown(Duration drain) {
        return server.shutdown(drain);
    }

    public InetSocketAddress address() {
        return server.localAddress();
    }

    public Server server() {
        return server;
    }

    /** Times reading paused because the other side was not writable. */
    public long pauses() {
        return pauses;
    }

    /** The most bytes ever queued toward one side. */
    public long maxQueued() {
        return maxQueued;
    }

    public long upstreamFailures() {
        return upstreamFailures;
    }

    String summary() {
        return "tcp-proxy stopped: " + accepted + " connections, " + upstreamFailures + " upstream connects failed"
                + (lastUpstreamFailure == null ? "" : " (last: " + lastUpstreamFailure + ")") + ", reading paused "
                + pauses + " times, at most " + maxQueued + " bytes queued";
    }
}
