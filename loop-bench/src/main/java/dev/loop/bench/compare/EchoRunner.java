package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The echo workloads, process-based: each server under test runs in its own process (pinned to
 * CPU 0 when taskset is there), and for each workload a fresh load generator process (pinned to
 * CPU 1) measures it, so client and server share neither JIT nor GC. The same load generator, the
 * same payload, warm-up and windows for every server.
 */
final class EchoRunner {
    static final int PING_SIZE = 64;
    static final int STREAM_SIZE = 4096;
    static final int STREAM_INFLIGHT = 16;

    /** One echo workload. */
    record Workload(String group, String name, boolean stream, int connections) {
        String unit() {
            return stream ? "MB/s" : "msgs/s";
        }
    }

    /**
     * One server implementation.
     *
     * @param impl      {@code --impl} of {@link EchoServerMain}, or "python-asyncio" / "python-uvloop"
     * @param timers    our timer strategy, or null
     * @param contender its name in the table
     * @param skip      why it is not run here, or null
     */
    record Impl(String impl, String timers, String contender, Row.Side side, String skip) {
    }

    static List<Workload> workloads(CompareOptions o) {
        List<Workload> out = new ArrayList<>();
        if (o.runs("echo")) {
            for (int c : o.connections()) {
                out.add(new Workload("echo", "echo ping-pong 64 B, " + c + (c == 1 ? " conn" : " conns"), false, c));
            }
        }
        if (o.runs("stream")) {
            for (int c : o.streamConnections()) {
                out.add(new Workload("stream", "echo stream 4 KiB x16, " + c + (c == 1 ? " conn" : " conns"), true, c));
            }
        }
        return out;
    }

    static String label(int connections) {
        return connections + (connections == 1 ? " conn" : " conns");
    }

    private final CompareOptions options;
    private final Progress progress;
    private final Path logs;
    private final Path scripts;

    EchoRunner(CompareOptions options, Progress progress, Path logs, Path scripts) {
        this.options = options;
        this.progress = progress;
        this.logs = logs;
        this.scripts = scripts;
    }

    void run(List<Impl> impls, List<Workload> workloads, Results results) throws IOException {
        Files.createDirectories(logs);
        for (Impl impl : impls) {
            if (impl.skip() != null) {
                for (Workload w : workloads) {
                    results.add(Row.unavailable(w.group(), w.name(), impl.contender(), impl.side(), w.unit(), impl.skip()));
                }
                progress.note("  " + impl.contender() + ": " + impl.skip());
                continue;
            }
            serve(impl, workloads, results);
        }
    }

    private List<String> serverCommand(Impl impl) {
        if (impl.impl().startsWith("python-")) {
            return List.of(options.python(), scripts.resolve("echo_server.py").toString(), "--loop",
                    impl.impl().substring("python-".length()));
        }
        List<String> args = new ArrayList<>(List.of("--impl", impl.impl()));
        if (impl.timers() != null) {
            args.addAll(List.of("--timers", impl.timers()));
        }
        return Processes.javaCommand(EchoServerMain.class, args);
    }

    private void serve(Impl impl, List<Workload> workloads, Results results) throws IOException {
        String tag = impl.contender().replaceAll("[^A-Za-z0-9]+", "-");
        Path serverLog = logs.resolve(tag + "-server.log");
        Process server = new ProcessBuilder(Processes.pinned(options.pin(), 0, serverCommand(impl)))
                .redirectError(serverLog.toFile()).start();
        try {
            String first = readLine(server, 60);
            if (first == null || !first.startsWith("LISTENING ")) {
                String why;
                if (first != null && first.startsWith("UNSUPPORTED")) {
                    String msg = first.substring("UNSUPPORTED".length()).trim();
                    why = msg.contains("no sockets") ? "n/a (no sockets)" : "n/a (" + msg + ")";
                } else {
                    why = "failed: server did not start (" + (first == null ? Processes.tail(serverLog, 3) : first) + ")";
                }
                for (Workload w : workloads) {
                    results.add(Row.unavailable(w.group(), w.name(), impl.contender(), impl.side(), w.unit(), why));
                }
                progress.note(String.format(Locale.ROOT, "  %-40s %s", impl.contender(), why));
                return;
            }
            int port = Integer.parseInt(first.substring("LISTENING ".length()).trim());
            for (Workload w : workloads) {
                progress.start(w.name(), impl.contender());
                Row row = measure(impl, w, port, server.pid(), tag);
                results.add(row);
                progress.finish(row.measured() ? Format.si(row.median()) + " " + row.unit()
                        + (row.hasLatency() ? "  p99 " + Format.micros(row.p99Micros()) : "")
                        + "  server CPU " + Format.cores(row.serverCpu()) : row.note());
            }
        } finally {
            Processes.stop(server);
        }
    }

    private static String readLine(Process p, int seconds) throws IOException {
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "echo-watchdog");
            t.setDaemon(true);
            return t;
        });
        try {
            ScheduledFuture<?> kill = watchdog.schedule(p::destroyForcibly, seconds, TimeUnit.SECONDS);
            String line = Processes.reader(p.getInputStream()).readLine();
            kill.cancel(false);
            return line;
        } finally {
            watchdog.shutdownNow();
        }
    }

    /** Runs the load generator against the server at {@code port}; one row, or one saying why not. */
    Row measure(Impl impl, Workload w, int port, long serverPid, String tag) throws IOException {
        return measure(options, impl.contender(), impl.side(), w, port, serverPid, logs.resolve(tag + "-client.log"),
                progress);
    }

    static Row measure(CompareOptions options, String contender, Row.Side side, Workload w, int port, long serverPid,
                       Path clientLog, Progress progress) throws IOException {
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--mode",
                w.stream() ? "stream" : "pingpong", "--connections", Integer.toString(w.connections()),
                "--size", Integer.toString(w.stream() ? STREAM_SIZE : PING_SIZE),
                "--inflight", Integer.toString(STREAM_INFLIGHT),
                "--warmup-ms", Long.toString(options.warmup().toMillis()),
                "--iterations", Integer.toString(options.iterations()),
                "--iteration-ms", Long.toString(options.iteration().toMillis())));
        if (serverPid > 0) {
            args.addAll(List.of("--server-pid", Long.toString(serverPid)));
        }
        List<String> cmd = Processes.pinned(options.pin(), 1, Processes.javaCommand(LoadGenerator.class, args));
        Process client = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(clientLog.toFile()))
                .start();
        long budget = options.warmup().toMillis() + options.iterations() * options.iteration().toMillis() + 60_000;
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "client-watchdog");
            t.setDaemon(true);
            return t;
        });
        List<Double> samples = new ArrayList<>();
        List<Double> p50 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        double seconds = 0;
        double clientCpu = 0;
        double serverCpu = 0;
        String error = null;
        try (BufferedReader r = Processes.reader(client.getInputStream())) {
            watchdog.schedule(client::destroyForcibly, budget, TimeUnit.MILLISECONDS);
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("ITER ")) {
                    String[] f = line.split(" ");
                    double msgs = Double.parseDouble(f[1]);
                    double bytes = Double.parseDouble(f[2]);
                    double s = Double.parseDouble(f[3]);
                    samples.add(w.stream() ? bytes / s / 1e6 : msgs / s);
                    seconds += s;
                    clientCpu += Double.parseDouble(f[4]);
                    serverCpu += Double.parseDouble(f[5]);
                    if (!w.stream()) {
                        p50.add(Double.parseDouble(f[6]) / 1000);
                        p99.add(Double.parseDouble(f[7]) / 1000);
                    }
                    if (progress != null) {
                        progress.tick();
                    }
                } else if (line.startsWith("ERROR ")) {
                    error = line.substring("ERROR ".length());
                }
            }
            client.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            watchdog.shutdownNow();
            client.destroyForcibly();
        }
        if (samples.size() < options.iterations()) {
            String why = "failed: " + (error != null ? error : "load generator ended early (" + Processes.tail(clientLog, 2) + ")");
            if (samples.isEmpty()) {
                return Row.unavailable(w.group(), w.name(), contender, side, w.unit(), why);
            }
            // keep what was measured, and say it is incomplete
            return new Row(w.group(), w.name(), contender, side, w.unit(), samples, Row.median(p50), Row.median(p99),
                    clientCpu / seconds, serverCpu / seconds, why);
        }
        double srv = serverPid > 0 ? serverCpu / seconds : Double.NaN;
        String note = clientCpu / seconds > 0.9 ? "load generator near one core: a lower bound" : null;
        return new Row(w.group(), w.name(), contender, side, w.unit(), samples,
                w.stream() ? Double.NaN : Row.median(p50), w.stream() ? Double.NaN : Row.median(p99),
                clientCpu / seconds, srv, note);
    }
}
