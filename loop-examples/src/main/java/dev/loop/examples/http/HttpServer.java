package dev.loop.examples.http;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.examples.io.ServerArgs;
import dev.loop.examples.io.ServerHost;
import dev.loop.micrometer.LoopMetricsBinder;
import dev.loop.net.ServerOptions;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code http-server}: an HTTP/1.1 server on one loop or a loop group. Thread-safe.
 *
 * <p>It answers {@code GET /plaintext} and {@code GET /json} as the TechEmpower benchmarks define
 * them, echoes {@code POST /echo}, and with {@code --dir} serves files from a directory, with
 * validators, conditional requests and single byte ranges ({@link FileResponse}). Keep-alive,
 * pipelining (answers in order, a batch in one write), {@code Content-Length} and chunked bodies
 * (trailers checked as header lines), {@code Expect: 100-continue}, every request target form
 * ({@link RequestTarget}), {@code Host} checked against RFC 3986 ({@link Authority}), HTTP/1.x
 * minor versions above 1 served as 1.1, limits on every part of a request ({@link HttpLimits})
 * with a 400/413/414/431 and a closed connection past them, and an idle timeout.
 */
public final class HttpServer implements AutoCloseable {
    /** How a connection reads: push (a handler gets every chunk) or task (one task per connection). */
    public enum Style { PUSH, TASK }

    /**
     * Everything the server can be told.
     *
     * @param dir      the directory to serve files from, or null for none
     * @param offload  read files on virtual threads ({@code Loop.offload}) rather than on the loop
     * @param metrics  serve the loops' metrics at {@code /metrics}, in Prometheus' text format
     */
    public record Config(InetSocketAddress address, String backend, String timers, int loops, Path dir,
                         boolean offload, Style style, HttpLimits limits, boolean metrics) {
        public static Config defaults() {
            return new Config(new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080), null, null, 1, null,
                    false, Style.PUSH, HttpLimits.defaults(), false);
        }

        public Config withAddress(InetSocketAddress a) {
            return new Config(a, backend, timers, loops, dir, offload, style, limits, metrics);
        }

        public Config withBackend(String b) {
            return new Config(address, b, timers, loops, dir, offload, style, limits, metrics);
        }

        public Config withTimers(String t) {
            return new Config(address, backend, t, loops, dir, offload, style, limits, metrics);
        }

        public Config withLoops(int n) {
            return new Config(address, backend, timers, n, dir, offload, style, limits, metrics);
        }

        public Config withDir(Path d, boolean offloadReads) {
            return new Config(address, backend, timers, loops, d, offloadReads, style, limits, metrics);
        }

        public Config withStyle(Style s) {
            return new Config(address, backend, timers, loops, dir, offload, s, limits, metrics);
        }

        public Config withMetrics(boolean on) {
            return new Config(address, backend, timers, loops, dir, offload, style, limits, on);
        }

        public Config withLimits(HttpLimits l) {
            return new Config(address, backend, timers, loops, dir, offload, style, l, metrics);
        }
    }

    private final ServerHost host;
    private final LongAdder accepted;
    private final LongAdder refused;
    private final Config config;

    private HttpServer(ServerHost host, LongAdder accepted, LongAdder refused, Config config) {
        this.host = host;
        this.accepted = accepted;
        this.refused = refused;
        this.config = config;
    }

    /** Starts serving on threads of its own. */
    public static HttpServer start(Config config) throws IOException {
        LongAdder accepted = new LongAdder();
        LongAdder refused = new LongAdder();
        LoopOptions loopOptions = LoopOptions.defaults().withBackend(config.backend()).withTimers(config.timers());
        // the loop's own idle timeout would reset the connection; the server closes idle ones gracefully
        ServerHost host = ServerHost.start("http", loopOptions, config.loops(), config.address(),
                ServerOptions.defaults(), service(config, files(config), accepted, refused));
        return new HttpServer(host, accepted, refused, config);
    }

    /**
     * Starts serving on {@code loop}, a loop the caller runs (a simulated host's, a test's), with
     * the wiring {@link #start(Config)} uses; {@code config}'s backend, timers and loop count do not
     * apply. Call it on {@code loop}'s thread or before the loop runs; {@link #close()} closes the
     * listener and every connection and leaves the loop open.
     */
    public static HttpServer start(Loop loop, Config config) throws IOException {
        LongAdder accepted = new LongAdder();
        LongAdder refused = new LongAdder();
        ServerHost host = ServerHost.on(loop, config.address(), ServerOptions.defaults(),
                service(config, files(config), accepted, refused));
        return new HttpServer(host, accepted, refused, config);
    }

    private static StaticFiles files(Config config) throws IOException {
        return config.dir() == null ? null : new StaticFiles(config.dir(), config.offload());
    }

    /** The server's wiring: per loop its state (limits, files, metrics), per connection an {@link HttpConnection}. */
    private static ServerHost.Service service(Config config, StaticFiles files, LongAdder accepted, LongAdder refused) {
        PrometheusMeterRegistry registry = config.metrics() ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : null;
        return (loop, index, all) -> {
            HttpLoopState state = new HttpLoopState(loop, config.limits(), files, refused);
            if (registry != null) {
                LoopMetricsBinder.of(loop).bindTo(registry);
                state.metrics = registry::scrape;
            }
            return c -> {
                accepted.increment();
                HttpConnection h = new HttpConnection(c, state);
                if (config.style() == Style.TASK) {
                    h.startTask();
                } else {
                    h.startPush();
                }
            };
        };
    }

    public InetSocketAddress address() {
        return host.address();
    }

    /** Connections accepted so far, on every loop. */
    public long connectionsAccepted() {
        return accepted.sum();
    }

    /** Requests refused so far (400, 408, 413, 431, ...), each followed by a close, on every loop. */
    public long requestsRefused() {
        return refused.sum();
    }

    public String backendName() {
        return host.backendName();
    }

    /** The loops serving it, in their group's order: for reading their metrics. */
    public List<Loop> loops() {
        return host.loops();
    }

    @Override
    public void close() {
        host.close();
    }

    /** The command line: {@code http-server [--port P] [--host H] [--backend B] [--loops N] [--dir D] ...}. */
    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        ServerArgs a;
        Config c;
        try {
            a = new ServerArgs("http-server", args,
                    List.of("--port", "--host", "--backend", "--timers", "--loops", "--dir", "--file-reads", "--style",
                            "--idle-timeout-ms", "--head-timeout-ms", "--body-timeout-ms", "--max-body"),
                    List.of("--metrics"));
            c = Config.defaults();
            InetAddress host = InetAddress.getByName(a.string("--host", "127.0.0.1"));
            c = c.withAddress(new InetSocketAddress(host, a.integer("--port", 8080, 0, 65535)))
                    .withBackend(a.string("--backend", null))
                    .withTimers(a.string("--timers", null))
                    .withLoops(a.integer("--loops", 1, 1, 1024))
                    .withMetrics(a.flag("--metrics"));
            String dir = a.string("--dir", null);
            String reads = a.string("--file-reads", "loop");
            if (!reads.equals("loop") && !reads.equals("offload")) {
                throw new IllegalArgumentException("http-server: --file-reads is 'loop' or 'offload', not '" + reads + "'");
            }
            c = c.withDir(dir == null ? null : Path.of(dir), reads.equals("offload"));
            String style = a.string("--style", "push");
            if (!style.equals("push") && !style.equals("task")) {
                throw new IllegalArgumentException("http-server: --style is 'push' or 'task', not '" + style + "'");
            }
            c = c.withStyle(style.equals("task") ? Style.TASK : Style.PUSH);
            HttpLimits d = HttpLimits.defaults();
            c = c.withLimits(d.withIdleTimeout(Duration.ofMillis(
                            a.integer("--idle-timeout-ms", (int) d.idleTimeout().toMillis(), 1, Integer.MAX_VALUE)))
                    .withHeadTimeout(Duration.ofMillis(
                            a.integer("--head-timeout-ms", (int) d.headTimeout().toMillis(), 1, Integer.MAX_VALUE)))
                    .withBodyTimeout(Duration.ofMillis(
                            a.integer("--body-timeout-ms", (int) d.bodyTimeout().toMillis(), 1, Integer.MAX_VALUE)))
                    .withMaxBody(a.integer("--max-body", (int) d.maxBody(), 0, 1 << 30)));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        try (HttpServer server = start(c)) {
            server.host.stopOnSignals(); // before the banner: a signal sent once it is read finds the handlers
            out.println("http server on http://" + server.address().getHostString() + ":" + server.address().getPort()
                    + "/ (plaintext, json, echo" + (c.metrics() ? ", metrics" : "") + (c.dir() == null ? "" : ", files from " + c.dir()
                    + " read " + (c.offload() ? "off the loop" : "on the loop")) + "), backend "
                    + server.backendName() + ", " + c.loops() + (c.loops() == 1 ? " loop" : " loops ("
                    + server.host.acceptMode() + ")") + ", " + c.style().name().toLowerCase() + " style");
            out.flush();
            String signal = server.host.awaitSignalOrClose();
            if (signal != null) {
                out.println("stopping on SIG" + signal);
            }
        }
        return 0;
    }

    @Override
    public String toString() {
        return "HttpServer[" + address() + ", " + loops().size() + " loops, " + backendName() + "]";
    }
}
