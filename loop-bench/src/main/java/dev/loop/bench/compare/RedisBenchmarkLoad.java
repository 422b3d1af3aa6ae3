package dev.loop.bench.compare;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Redis-protocol load from {@code redis-benchmark}: one test of its default suite
 * ({@code ping_mbulk}, {@code set}, {@code get}, {@code incr}, {@code lpush}, ... {@code mset}),
 * {@code clients} connections, {@code depth} pipelined commands each
 * ({@code -P}), its CSV report read for requests per second and latency.
 *
 * <p>{@code redis-benchmark} runs a number of requests, not a length of time, so each run is sized
 * to fill the window at the rate this server last showed on this test; a server not seen yet gets
 * an unmeasured probe of {@link #PROBE} requests first. The measured time is the request count
 * over the rate it reports, so its start-up and the connecting of the clients stay outside.
 */
final class RedisBenchmarkLoad extends CommandLoad {
    static final int PROBE = 20_000;
    static final long MAX_REQUESTS = 50_000_000;

    private final String test;
    private final int clients;
    private final int depth;
    /** Requests per second last seen, per server port. */
    private final Map<Integer, Double> rates = new ConcurrentHashMap<>();

    RedisBenchmarkLoad(boolean pin, Path log, String test, int clients, int depth) {
        super(pin, log);
        if (clients < 1 || depth < 1) {
            throw new IllegalArgumentException("redis-benchmark needs clients >= 1 and depth >= 1: " + clients
                    + ", " + depth);
        }
        this.test = test;
        this.clients = clients;
        this.depth = depth;
    }

    @Override
    public ServerLoad.Window run(ServerLoad.Endpoint server, Duration settle, Duration length, boolean burst,
                                 ServerLoad.Meter meter) throws IOException {
        if (!rates.containsKey(server.port())) {
            super.run(server, Duration.ZERO, Duration.ZERO, true, ServerLoad.Meter.NONE); // the probe
        }
        return super.run(server, settle, length, burst, meter);
    }

    /** Requests for a run of {@code length}: the probe's count until a rate is known. */
    long requests(int port, Duration length) {
        Double rate = rates.get(port);
        if (rate == null || length.isZero()) {
            return PROBE;
        }
        long n = (long) (rate * length.toNanos() / 1e9);
        // at least one round of every client's pipeline; at most a bound that keeps a wrong
        // estimate from running for minutes
        return Math.max((long) clients * depth * 2, Math.min(n, MAX_REQUESTS));
    }

    // what the run in progress was asked for: command() and parse() bracket one run on one thread
    private int runPort;
    private long runRequests;

    @Override
    protected List<String> command(ServerLoad.Endpoint server, Duration length) {
        runPort = server.port();
        runRequests = requests(server.port(), length);
        return List.of("redis-benchmark", "-h", server.host(), "-p", Integer.toString(server.port()), "-c",
                Integer.toString(clients), "-P", Integer.toString(depth), "-n", Long.toString(runRequests), "-t",
                test, "--csv");
    }

    /**
     * Reads the CSV report: a header line, then
     * {@code "TEST","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",
     * "p99_latency_ms","max_latency_ms"}.
     */
    @Override
    protected ServerLoad.Window parse(String output, double seconds) throws IOException {
        ServerLoad.Window w = parseReport(output, test, runRequests);
        rates.put(runPort, w.operations() / w.seconds());
        return w;
    }

    static ServerLoad.Window parseReport(String output, String test, long requests) throws IOException {
        String want = test.toUpperCase(Locale.ROOT);
        for (String line : output.split("\\R")) {
            String[] f = line.replace("\"", "").split(",");
            // MSET's line names its key count: "MSET (10 keys)"
            if (f.length < 7 || !(f[0].equals(want) || f[0].startsWith(want + " ("))) {
                continue;
            }
            try {
                double rps = Double.parseDouble(f[1]);
                if (!(rps > 0)) {
                    throw new IOException("redis-benchmark reported " + f[1] + " requests/s for " + test);
                }
                return new ServerLoad.Window(requests, 0, requests / rps, Double.NaN, Double.parseDouble(f[4]) * 1000,
                        Double.parseDouble(f[6]) * 1000);
            } catch (NumberFormatException e) {
                throw new IOException("redis-benchmark's report line is not numbers: " + line);
            }
        }
        throw new IOException("redis-benchmark printed no CSV line for " + want + ": "
                + output.strip().replace('\n', ' '));
    }
}
