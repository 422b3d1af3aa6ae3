package dev.loop.bench.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * HTTP load from {@code wrk}: one thread, {@code connections} keep-alive connections, each with
 * {@code depth} pipelined requests in flight (1: plain request/response). A Lua script written next
 * to the logs adds the pipelining (TechEmpower's way: one write carries the batch) and a
 * {@code done} hook that prints the run's exact figures on one line: requests, wrk's own measured
 * duration in microseconds, the error counts, the median and 99th percentile latency, and wrk's
 * CPU time ({@code os.clock()}), so nothing is read off its rounded human summary.
 *
 * <p>{@code wrk} takes whole seconds, so a window is rounded up to one; and there is no separate
 * settling run: each run opens its connections afresh, so a run before it would warm nothing the
 * measured one keeps, and would only double every window's cost (the servers were warmed before
 * the first window).
 */
final class WrkLoad extends CommandLoad {
    private final String path;
    private final int connections;
    private final int depth;
    private final Path script;

    /**
     * @param script where to write the Lua script (one per pipeline depth)
     * @throws IOException if the script cannot be written
     */
    WrkLoad(boolean pin, Path log, Path script, String path, int connections, int depth) throws IOException {
        super(pin, log);
        if (connections < 1 || depth < 1) {
            throw new IllegalArgumentException("wrk needs connections >= 1 and depth >= 1: " + connections + ", "
                    + depth);
        }
        this.path = path;
        this.connections = connections;
        this.depth = depth;
        this.script = script;
        Files.createDirectories(script.toAbsolutePath().getParent());
        Files.writeString(script, script(depth), StandardCharsets.UTF_8);
    }

    /** The Lua script: pipelining when {@code depth > 1}, the one-line report always. */
    static String script(int depth) {
        StringBuilder s = new StringBuilder();
        s.append("-- written by the compare command: ").append(depth > 1 ? depth + " pipelined requests per write, "
                : "").append("and one line of exact figures at the end\n");
        if (depth > 1) {
            // without a request function wrk sends its static request, the cheaper path; only
            // pipelining needs one
            s.append("init = function(args)\n")
                    .append("   local batch = {}\n")
                    .append("   for i = 1, ").append(depth).append(" do batch[i] = wrk.format(nil, nil) end\n")
                    .append("   req = table.concat(batch)\n")
                    .append("end\n")
                    .append("request = function() return req end\n");
        }
        s.append("done = function(summary, latency, requests)\n")
                .append("   local e = summary.errors\n")
                .append("   io.write(string.format(\"WRK requests=%d duration_us=%d bytes=%d connect=%d read=%d"
                        + " write=%d status=%d timeout=%d p50_us=%d p99_us=%d cpu_s=%.6f\\n\",\n")
                .append("      summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write,"
                        + " e.status, e.timeout,\n")
                .append("      latency:percentile(50), latency:percentile(99), os.clock()))\n")
                .append("end\n");
        return s.toString();
    }

    @Override
    public ServerLoad.Window run(ServerLoad.Endpoint server, Duration settle, Duration length, boolean burst,
                                 ServerLoad.Meter meter) throws IOException {
        return super.run(server, Duration.ZERO, length, burst, meter);
    }

    /** Whole seconds, at least one: what {@code wrk -d} accepts. */
    static long seconds(Duration length) {
        return Math.max(1, (length.toMillis() + 999) / 1000);
    }

    @Override
    protected List<String> command(ServerLoad.Endpoint server, Duration length) {
        List<String> cmd = new ArrayList<>(List.of("wrk", "-t1", "-c" + connections, "-d" + seconds(length) + "s",
                "--timeout", "10s", "-s", script.toString()));
        cmd.add("http://" + server.host() + ":" + server.port() + path);
        return cmd;
    }

    /**
     * Reads the script's line. A response that was not 2xx/3xx, or a connection that failed to
     * connect, read or write, fails the window: a server answering errors fast must not score.
     */
    @Override
    protected ServerLoad.Window parse(String output, double seconds) throws IOException {
        Map<String, String> f = report(output);
        long requests = number(f, "requests");
        long status = number(f, "status");
        long broken = number(f, "connect") + number(f, "read") + number(f, "write");
        if (status > 0 || broken > 0) {
            throw new IOException("wrk saw " + status + " responses that were not 2xx/3xx and " + broken
                    + " connect/read/write errors in " + requests + " requests");
        }
        double measured = number(f, "duration_us") / 1e6;
        double cpu = Double.parseDouble(f.get("cpu_s"));
        long p50 = number(f, "p50_us");
        long p99 = number(f, "p99_us");
        // wrk 4.1 has been seen to give a 99th percentile of 0 beside a median of milliseconds (one
        // pipelining connection): a percentile below the median is no measurement, so none is shown
        return new ServerLoad.Window(requests, number(f, "bytes"), measured, cpu, p50 > 0 ? p50 : Double.NaN,
                p99 >= p50 && p99 > 0 ? p99 : Double.NaN);
    }

    private static Map<String, String> report(String output) throws IOException {
        for (String line : output.split("\n")) {
            if (line.startsWith("WRK ")) {
                Map<String, String> f = new HashMap<>();
                for (String kv : line.substring(4).trim().split("\\s+")) {
                    int eq = kv.indexOf('=');
                    if (eq > 0) {
                        f.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                return f;
            }
        }
        throw new IOException("wrk printed no report line (is it wrk 4 with Lua?): "
                + output.strip().replace('\n', ' '));
    }

    private static long number(Map<String, String> f, String key) throws IOException {
        String v = f.get(key);
        if (v == null) {
            throw new IOException("wrk's report lacks " + key + ": " + f);
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IOException("wrk's report has " + key + "=" + v + ", not a whole number");
        }
    }
}
