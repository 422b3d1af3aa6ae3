package dev.loop.bench.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs server workloads the way {@link Rounds} pairs contenders: every server in a process of its
 * own (on the server's CPU when pinning is on), all started together and kept alive for every
 * workload; each warmed up under every workload's load before any window is measured, so the JIT
 * has compiled every server before the first row and the order favours no one; then, per
 * workload, rounds of one window per server in turn, with the server's CPU read around each
 * window; then, apart from those windows, one burst per server under {@code strace} for its
 * system calls per operation. Knows nothing of any protocol: that is the workload's
 * {@link ServerLoad.Load}.
 */
final class ServerRunner {
    /**
     * Settings of one run.
     *
     * @param selfCpu a server of ours reports its own CPU time to the nanosecond ({@link LoopProbe})
     *                and that is its CPU per operation, instead of {@code /proc}'s 10 ms ticks: for
     *                rows compared with each other to a few percent, never with a peer's
     */
    record Settings(Duration warmup, Duration settle, Duration window, int rounds, Duration traceWindow, boolean pin,
                    String straceWhyNot, boolean selfCpu) {
        Settings(Duration warmup, Duration settle, Duration window, int rounds, Duration traceWindow, boolean pin,
                 String straceWhyNot) {
            this(warmup, settle, window, rounds, traceWindow, pin, straceWhyNot, false);
        }
    }

    private final Settings settings;
    private final Progress progress;
    private final Path logs;

    ServerRunner(Settings settings, Progress progress, Path logs) {
        this.settings = settings;
        this.progress = progress;
        this.logs = logs;
    }

    /** A server process as the runner keeps it. */
    private static final class Running implements ServerLoad.Endpoint {
        final ServerLoad.Spec spec;
        Process process;
        ServerControl control;
        int port;
        String failure;

        Running(ServerLoad.Spec spec) {
            this.spec = spec;
            this.failure = spec.skip();
        }

        @Override
        public String host() {
            return "127.0.0.1";
        }

        @Override
        public int port() {
            return port;
        }

        @Override
        public List<Long> pids() {
            List<Long> out = new ArrayList<>();
            if (process != null) {
                out.add(process.pid());
                process.descendants().forEach(d -> out.add(d.pid()));
            }
            return out;
        }

        String tag() {
            return spec.contender().replaceAll("[^A-Za-z0-9]+", "-");
        }
    }

    /** What one server measured on one workload. */
    private static final class Tally {
        final List<Double> samples = new ArrayList<>();
        final List<Double> p50 = new ArrayList<>();
        final List<Double> p99 = new ArrayList<>();
        final List<Double> cpuPerOp = new ArrayList<>();
        final List<Double> serverCores = new ArrayList<>();
        final List<Double> loopBusy = new ArrayList<>();
        final List<Double> loopLag = new ArrayList<>();
        double clientCpu;
        double seconds;
        int stalls;
        String failure;
        Syscalls syscalls;
    }

    void run(List<ServerLoad.Spec> specs, List<ServerLoad.Workload> workloads, Results results) throws IOException {
        Files.createDirectories(logs);
        List<Running> servers = new ArrayList<>();
        specs.forEach(s -> servers.add(new Running(s)));
        try {
            progress.start("servers", "starting " + servers.size() + " and warming each under every workload");
            long t0 = System.nanoTime();
            for (Running s : servers) {
                start(s);
            }
            for (Running s : servers) {
                if (s.failure == null) {
                    awaitReady(s);
                }
            }
            warmUp(servers, workloads);
            progress.finish(String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - t0) / 1e9));
            for (Running s : servers) {
                if (s.failure != null) {
                    progress.note(String.format(Locale.ROOT, "      %-40s %s", s.spec.contender(), s.failure));
                }
            }
            for (ServerLoad.Workload w : workloads) {
                measure(servers, w, results);
            }
        } finally {
            for (Running s : servers) {
                if (s.process != null) {
                    Processes.stop(s.process);
                }
            }
            for (ServerLoad.Workload w : workloads) {
                w.load().close();
            }
        }
    }

    private void start(Running s) {
        if (s.failure != null) {
            return;
        }
        try {
            s.process = new ProcessBuilder(Processes.pinned(settings.pin(), 0, s.spec.command()))
                    .redirectError(ProcessBuilder.Redirect.appendTo(logs.resolve(s.tag() + "-server.log").toFile()))
                    .start();
            // ours answer the loop probe; a peer is never asked
            s.control = new ServerControl(s.process, s.spec.side() == Row.Side.OURS);
        } catch (IOException e) {
            s.failure = "failed: could not start (" + e.getMessage() + ")";
        }
    }

    private void awaitReady(Running s) {
        Path log = logs.resolve(s.tag() + "-server.log");
        if (s.spec.port() > 0) {
            s.port = s.spec.port();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && s.process.isAlive()) {
                try (Socket probe = new Socket()) {
                    probe.connect(new InetSocketAddress(s.host(), s.port), 1000);
                    return;
                } catch (IOException e) {
                    sleep(50);
                }
            }
            s.failure = "failed: nothing listened on port " + s.port + " (" + Processes.tail(log, 2) + ")";
            return;
        }
        String first = s.control.firstLine(60);
        if (first != null && first.startsWith("LISTENING ")) {
            s.port = Integer.parseInt(first.substring("LISTENING ".length()).trim());
            return;
        }
        if (first != null && first.startsWith("UNSUPPORTED")) {
            String msg = first.substring("UNSUPPORTED".length()).trim();
            s.failure = msg.contains("no sockets") ? "n/a (no sockets)" : "n/a (" + msg + ")";
        } else {
            s.failure = "failed: server did not start (" + (first == null ? Processes.tail(log, 3) : first) + ")";
        }
    }

    /** Every server under every workload's load, before any measured window. */
    private void warmUp(List<Running> servers, List<ServerLoad.Workload> workloads) {
        Duration each = settings.warmup().dividedBy(Math.max(1, workloads.size()));
        for (Running s : servers) {
            for (ServerLoad.Workload w : workloads) {
                if (s.failure != null) {
                    break;
                }
                try {
                    w.load().run(s, Duration.ZERO, each, false, ServerLoad.Meter.NONE);
                } catch (IOException e) {
                    s.failure = "failed in warm-up: " + e.getMessage();
                }
                progress.tick();
            }
        }
    }

    private void measure(List<Running> servers, ServerLoad.Workload w, Results results) {
        long t0 = System.nanoTime();
        progress.start(w.name(), servers.size() + " servers, " + settings.rounds() + " rounds");
        List<Tally> tallies = new ArrayList<>();
        servers.forEach(s -> tallies.add(new Tally()));
        Rounds.run(settings.rounds(), servers.size(), (round, i) -> {
            Running s = servers.get(i);
            Tally t = tallies.get(i);
            if (s.failure != null || t.failure != null || t.samples.size() != round) {
                return;
            }
            ProcCpu.Meter cpu = new ProcCpu.Meter(s);
            ServerControl.Probe probe = s.control.probe();
            try {
                ServerLoad.Window win = w.load().run(s, settings.settle(), settings.window(), false,
                        both(cpu, probe));
                double used = settings.selfCpu() && !Double.isNaN(probe.cpuSeconds()) ? probe.cpuSeconds()
                        : cpu.seconds();
                // a window in which nothing came back is a stall: a score of 0, kept and flagged
                t.stalls += win.operations() <= 0 ? 1 : 0;
                t.samples.add(w.score(win));
                t.p50.add(win.p50Micros());
                t.p99.add(win.p99Micros());
                t.cpuPerOp.add(win.operations() > 0 ? used / win.operations() : Double.NaN);
                t.serverCores.add(used / win.seconds());
                t.loopBusy.add(probe.busy());
                t.loopLag.add(probe.lagP99Nanos());
                t.clientCpu += win.clientCpu();
                t.seconds += win.seconds();
            } catch (IOException e) {
                t.failure = "failed: " + e.getMessage();
                if (s.process != null && !s.process.isAlive()) {
                    s.failure = "failed: the server exited (" + Processes.tail(logs.resolve(s.tag() + "-server.log"), 2)
                            + ")";
                }
            }
            progress.tick();
        });
        for (int i = 0; i < servers.size(); i++) {
            tallies.get(i).syscalls = trace(servers.get(i), w);
        }
        results.pairing(w.name(), String.format(Locale.ROOT,
                "%d rounds of one %d ms window per server, in turns, after every server's warm-up", settings.rounds(),
                settings.window().toMillis()));
        progress.finish(String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - t0) / 1e9));
        for (int i = 0; i < servers.size(); i++) {
            Row row = row(servers.get(i), tallies.get(i), w);
            results.add(row);
            progress.note(String.format(Locale.ROOT, "      %-40s %s", row.contender(), row.measured()
                    ? Format.si(row.median()) + " " + row.unit() + "  CPU/" + w.perOp() + " "
                    + Format.nanos(row.cpuPerOp()) + "  syscalls/" + w.perOp() + " " + row.syscalls().describe()
                    + (row.hasLoopMetrics() ? "  loop busy " + Format.percent(row.loopBusy()) + ", lag p99 "
                    + Format.micros(row.loopLagP99Nanos() / 1e3) : "")
                    : row.note()));
        }
    }

    /** One burst under strace, apart from the throughput windows. */
    private Syscalls trace(Running s, ServerLoad.Workload w) {
        if (s.failure != null) {
            return Syscalls.unavailable("-");
        }
        if (settings.straceWhyNot() != null) {
            return Syscalls.unavailable(settings.straceWhyNot());
        }
        Path out = logs.resolve(s.tag() + "-strace.txt");
        Syscalls.Tracer tracer = new Syscalls.Tracer(s, out, logs.resolve(s.tag() + "-server.log"));
        try {
            ServerLoad.Window win = w.load().run(s, Duration.ZERO, settings.traceWindow(), true, tracer);
            return tracer.result(win.operations());
        } catch (IOException e) {
            try {
                tracer.end();
            } catch (IOException ignored) {
                // reported below
            }
            return Syscalls.unavailable("n/a (traced burst failed: " + e.getMessage() + ")");
        }
    }

    private Row row(Running s, Tally t, ServerLoad.Workload w) {
        String why = s.failure != null ? s.failure : t.failure;
        if (t.samples.isEmpty()) {
            return Row.unavailable(w.group(), w.name(), s.spec.contender(), s.spec.side(), w.unit(),
                    why != null ? why : "failed: nothing measured");
        }
        double client = t.seconds > 0 ? t.clientCpu / t.seconds : Double.NaN;
        String note = why != null ? why + " (after " + t.samples.size() + " rounds)"
                : client > 0.9 ? "load generator near one core: a lower bound" : null;
        if (t.stalls > 0) {
            note = (note == null ? "" : note + "; ") + t.stalls + " of " + t.samples.size()
                    + " windows completed nothing (stalled)";
        }
        return new Row(w.group(), w.name(), s.spec.contender(), s.spec.side(), w.unit(), t.samples, Row.median(t.p50),
                Row.median(t.p99), client, Row.median(t.serverCores), note, Row.median(t.cpuPerOp), t.syscalls,
                medianOfKnown(t.loopBusy), medianOfKnown(t.loopLag), t.cpuPerOp);
    }

    /** The median of the values that are numbers; NaN when none is. */
    static double medianOfKnown(List<Double> values) {
        return Row.median(values.stream().filter(v -> !Double.isNaN(v)).toList());
    }

    /** Both meters around one window: the CPU read first and last, so it holds the probe's own work. */
    static ServerLoad.Meter both(ServerLoad.Meter outer, ServerLoad.Meter inner) {
        return new ServerLoad.Meter() {
            @Override
            public void begin() throws IOException {
                outer.begin();
                inner.begin();
            }

            @Override
            public void end() throws IOException {
                inner.end();
                outer.end();
            }
        };
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
