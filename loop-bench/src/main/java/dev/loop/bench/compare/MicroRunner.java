package dev.loop.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Fork;

/**
 * The micro workloads: the JMH benchmarks of {@code dev.loop.bench}, one benchmark method per
 * contender with the parameters the plan asks for. Every contender of a workload runs in a JVM of
 * its own ({@link TurnWorker}, with the benchmark's {@link Fork} flags), all of them alive at once
 * and measured in turns ({@link Rounds}): each is warmed up, then every round gives each one
 * window, so the rows of a workload are paired round by round.
 */
final class MicroRunner {
    private static final String PKG = "dev.loop.bench.";

    /**
     * One benchmark method and how its results become rows.
     *
     * @param group     the workload family
     * @param method    {@code Class.method} under {@code dev.loop.bench}
     * @param side      ours or a peer
     * @param workload  the workload's name, from the benchmark's parameters
     * @param contender the contender's name, from the benchmark's parameters
     * @param unit      what the score counts
     * @param params    JMH parameters to set (name, values)
     * @param scale     multiplies each score (rounds of {@code pending} timers become timers)
     */
    record Case(String group, String method, Row.Side side, Function<Map<String, String>, String> workload,
                Function<Map<String, String>, String> contender, String unit, Map<String, List<String>> params,
                Function<Map<String, String>, Double> scale) {

        int combinations() {
            return params.values().stream().mapToInt(List::size).reduce(1, (a, b) -> a * b);
        }

        /** Every combination of the parameters, the first parameter varying slowest. */
        List<Map<String, String>> expand() {
            List<Map<String, String>> out = new ArrayList<>();
            out.add(new LinkedHashMap<>());
            for (Map.Entry<String, List<String>> e : params.entrySet()) {
                List<Map<String, String>> next = new ArrayList<>();
                for (Map<String, String> partial : out) {
                    for (String v : e.getValue()) {
                        Map<String, String> m = new LinkedHashMap<>(partial);
                        m.put(e.getKey(), v);
                        next.add(m);
                    }
                }
                out = next;
            }
            return out;
        }
    }

    /** One contender of one workload: a benchmark method and its parameter values. */
    record Entry(Case c, Map<String, String> params) {
        String workload() {
            return c.workload().apply(params);
        }

        String contender() {
            return c.contender().apply(params);
        }
    }

    /** The contenders of every workload, workloads in the order their first case comes. */
    static Map<String, List<Entry>> byWorkload(List<Case> cases) {
        Map<String, List<Entry>> out = new LinkedHashMap<>();
        for (Case c : cases) {
            for (Map<String, String> p : c.expand()) {
                Entry e = new Entry(c, p);
                out.computeIfAbsent(e.workload(), k -> new ArrayList<>()).add(e);
            }
        }
        return out;
    }

    /** An ordered parameter map: name, values, name, values... */
    static Map<String, List<String>> params(Object... nameValues) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<String> v = (List<String>) nameValues[i + 1];
            m.put((String) nameValues[i], v);
        }
        return m;
    }

    /** What each case needs to know about the machine and the options. */
    record Plan(List<String> backends, List<String> allTimers, List<String> defaultTimers, List<String> nettyTransports,
                List<Integer> pending, boolean full, boolean peers) {
    }

    static String ours(Map<String, String> p) {
        return "loop " + p.get("backend") + "/" + p.get("timers");
    }

    static String pendingLabel(int n) {
        if (n >= 1_000_000 && n % 1_000_000 == 0) {
            return (n / 1_000_000) + "M";
        }
        if (n >= 1_000 && n % 1_000 == 0) {
            return (n / 1_000) + "k";
        }
        return Integer.toString(n);
    }

    /** The benchmark cases for the chosen workload families, in run order. */
    static List<Case> cases(CompareOptions o, Plan plan) {
        List<Case> out = new ArrayList<>();
        Map<String, List<String>> oursParams = params("backend", plan.backends(), "timers", plan.defaultTimers());
        Map<String, List<String>> netty = params("transport", plan.nettyTransports());
        Function<Map<String, String>, Double> one = p -> 1.0;
        if (o.runs("callsoon")) {
            String w = "callSoon in-loop";
            out.add(new Case("callsoon", "CallSoonInLoopBenchmark.loopCallSoon", Row.Side.OURS, p -> w,
                    MicroRunner::ours, "callbacks/s", oursParams, one));
            out.add(new Case("callsoon", "CallSoonInLoopBenchmark.nettyExecute", Row.Side.PEER, p -> w,
                    p -> "netty " + p.get("transport"), "callbacks/s", netty, one));
        }
        if (o.runs("callsoon-foreign")) {
            for (String n : List.of("1Producer", "2Producers", "4Producers")) {
                String w = "callSoon foreign, " + n.charAt(0) + (n.charAt(0) == '1' ? " producer" : " producers");
                out.add(new Case("callsoon-foreign", "CallSoonForeignBenchmark.loopCallSoon" + n, Row.Side.OURS,
                        p -> w, MicroRunner::ours, "callbacks/s", oursParams, one));
                out.add(new Case("callsoon-foreign", "CallSoonForeignBenchmark.nettyExecute" + n, Row.Side.PEER,
                        p -> w, p -> "netty " + p.get("transport"), "callbacks/s", netty, one));
            }
        }
        if (o.runs("timers")) {
            List<String> pending = plan.pending().stream().map(String::valueOf).toList();
            Map<String, List<String>> timerOurs = params("pending", pending, "backend", plan.backends(), "timers",
                    plan.allTimers());
            Map<String, List<String>> timerNetty = params("pending", pending, "transport", plan.nettyTransports());
            Map<String, List<String>> timerOther = params("pending", pending);
            Function<Map<String, String>, Double> perTimer = p -> Double.parseDouble(p.get("pending"));
            for (String[] kind : new String[][] {{"Fire", "timers fire"}, {"ScheduleCancel", "timers schedule+cancel"}}) {
                Function<Map<String, String>, String> w = p -> kind[1] + ", "
                        + pendingLabel(Integer.parseInt(p.get("pending"))) + " pending";
                String k = kind[0];
                out.add(new Case("timers", "TimerRealTimeBenchmark.loop" + k, Row.Side.OURS, w, MicroRunner::ours,
                        "timers/s", timerOurs, perTimer));
                out.add(new Case("timers", "TimerRealTimeBenchmark.nettyScheduled" + k, Row.Side.PEER, w,
                        p -> "netty " + p.get("transport") + " schedule", "timers/s", timerNetty, perTimer));
                out.add(new Case("timers", "TimerRealTimeBenchmark.nettyWheel" + k, Row.Side.PEER, w,
                        p -> "netty HashedWheelTimer", "timers/s", timerOther, perTimer));
                out.add(new Case("timers", "TimerRealTimeBenchmark.jdk" + k, Row.Side.PEER, w,
                        p -> "jdk ScheduledThreadPoolExecutor", "timers/s", timerOther, perTimer));
            }
        }
        if (o.runs("future")) {
            String w = "future + callback";
            out.add(new Case("future", "FutureBenchmark.loopPromise", Row.Side.OURS, p -> w, MicroRunner::ours,
                    "futures/s", oursParams, one));
            out.add(new Case("future", "FutureBenchmark.cfThenAccept", Row.Side.PEER, p -> w,
                    p -> "jdk CompletableFuture thenAccept", "futures/s", Map.of(), one));
            String f = FOREIGN_FUTURE_WORKLOAD;
            out.add(new Case("future", "FutureBenchmark.loopPromiseForeign", Row.Side.OURS, p -> f,
                    MicroRunner::ours, "futures/s", oursParams, one));
            out.add(new Case("future", "FutureBenchmark.cfThenAcceptForeign", Row.Side.PEER, p -> f,
                    p -> "jdk CompletableFuture thenAccept", "futures/s", Map.of(), one));
            out.add(new Case("future", "FutureBenchmark.cfThenAcceptAsyncForeign", Row.Side.PEER, p -> f,
                    p -> "jdk CompletableFuture thenAcceptAsync", "futures/s", Map.of(), one));
        }
        if (o.runs("task-switch")) {
            String w = "task switch";
            out.add(new Case("task-switch", "TaskCompareBenchmark.loopTaskSwitch", Row.Side.OURS, p -> w,
                    MicroRunner::ours, "switches/s", oursParams, one));
            out.add(new Case("task-switch", "TaskCompareBenchmark.cfThenComposeChain", Row.Side.PEER, p -> w,
                    p -> "jdk CompletableFuture thenComposeAsync", "switches/s", Map.of(), one));
        }
        if (o.runs("spawn")) {
            String w = "task spawn";
            out.add(new Case("spawn", "TaskCompareBenchmark.loopTaskSpawn", Row.Side.OURS, p -> w, MicroRunner::ours,
                    "tasks/s", oursParams, one));
            out.add(new Case("spawn", "TaskCompareBenchmark.virtualThreadSpawn", Row.Side.PEER, p -> w,
                    p -> "jdk virtual threads", "tasks/s", Map.of(), one));
        }
        if (o.runs("queue")) {
            String w = QUEUE_WORKLOAD;
            out.add(new Case("queue", "QueueCompareBenchmark.loopAsyncQueue", Row.Side.OURS, p -> w,
                    MicroRunner::ours, "items/s", oursParams, one));
            out.add(new Case("queue", "QueueCompareBenchmark.jdkArrayBlockingQueue", Row.Side.PEER, p -> w,
                    p -> "jdk ArrayBlockingQueue", "items/s", Map.of(), one));
        }
        if (!plan.peers()) {
            out.removeIf(c -> c.side() == Row.Side.PEER);
        }
        // a Netty transport that cannot load here leaves its cases with no values to run
        out.removeIf(c -> c.params().values().stream().anyMatch(List::isEmpty));
        return out;
    }

    /** Futures completed on a thread that is not the loop's: each callback crosses to the loop. */
    static final String FOREIGN_FUTURE_WORKLOAD = "future + callback, completed off the loop";

    /**
     * The least warm-up a workload family's contenders get, whatever the preset asks for. A future
     * per operation allocates about 2 GB a second, and a cold JVM runs ours and
     * CompletableFuture's at a fifth to half their speed until it has run them for about 3 s (a
     * young generation of fixed size shortens that, so much of it is the JVM sizing its young
     * generation and allocation buffers). With 2 s, the first one to three rounds of a contender
     * read 10-17 M/s against 60-90 after; with 5 s, none did (docs/BENCHMARKS.md, "The speed
     * targets, one by one").
     */
    private static final Map<String, Duration> LEAST_WARMUP = Map.of("future", Duration.ofSeconds(5));

    /** The warm-up the contenders of {@code group} get when the options ask for {@code asked}. */
    static Duration warmup(String group, Duration asked) {
        Duration least = LEAST_WARMUP.get(group);
        return least != null && least.compareTo(asked) > 0 ? least : asked;
    }

    static final String QUEUE_WORKLOAD = "queue 128, 1 producer/1 consumer";

    private final CompareOptions options;
    private final Progress progress;
    private final Path logs;
    private final Path scripts;

    MicroRunner(CompareOptions options, Progress progress, Path logs, Path scripts) {
        this.options = options;
        this.progress = progress;
        this.logs = logs;
        this.scripts = scripts;
    }

    /** A contender to start: its name, side, unit, how to start it, and what its score is multiplied by. */
    record Contender(String group, String workload, String name, Row.Side side, String unit, List<String> command,
                     double scale, String skip) {
    }

    /** The JVM command of one entry: its benchmark's fork flags, our class path, {@link TurnWorker}. */
    static List<String> command(Entry e) {
        List<String> args = new ArrayList<>();
        args.add(e.c().method());
        e.params().forEach((k, v) -> args.add(k + "=" + v));
        List<String> flags = new ArrayList<>(Processes.JVM_FLAGS);
        try {
            Class<?> type = Class.forName(PKG + e.c().method().substring(0, e.c().method().indexOf('.')));
            Fork f = type.getAnnotation(Fork.class);
            if (f != null) {
                for (String a : f.jvmArgsAppend()) {
                    // one heap size for every process of the comparison: several are alive at once
                    if (!a.startsWith("-Xms") && !a.startsWith("-Xmx") && !flags.contains(a)) {
                        flags.add(a);
                    }
                }
            }
        } catch (ClassNotFoundException ex) {
            throw new IllegalStateException("benchmark class of " + e.c().method() + " is missing", ex);
        }
        return Processes.javaCommand(flags, TurnWorker.class, args);
    }

    /** Runs every workload's contenders in rounds and adds their rows to {@code results}. */
    void run(Map<String, List<Contender>> workloads, Results results) throws IOException {
        Files.createDirectories(logs);
        for (Map.Entry<String, List<Contender>> w : workloads.entrySet()) {
            runWorkload(w.getKey(), w.getValue(), results);
        }
    }

    /** The contenders of each workload: the JMH entries, plus Python's queue when asked for. */
    static Map<String, List<Contender>> contenders(CompareOptions options, Path scripts, List<Case> cases,
                                                  boolean pythonQueue) {
        Map<String, List<Contender>> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<Entry>> w : byWorkload(cases).entrySet()) {
            List<Contender> list = new ArrayList<>();
            for (Entry e : w.getValue()) {
                list.add(new Contender(e.c().group(), w.getKey(), e.contender(), e.c().side(), e.c().unit(), command(e),
                        e.c().scale().apply(e.params()), null));
            }
            out.put(w.getKey(), list);
        }
        if (pythonQueue) {
            List<Contender> q = out.computeIfAbsent(QUEUE_WORKLOAD, k -> new ArrayList<>());
            for (String loop : PythonPeers.LOOPS) {
                q.add(new Contender("queue", QUEUE_WORKLOAD, "python " + loop, Row.Side.PEER, "items/s",
                        List.of(options.python(), scripts.resolve("queue_bench.py").toString(), "--loop", loop, "--serve"),
                        1.0, PythonPeers.unavailable(options.python(), loop)));
            }
        }
        return out;
    }

    private void runWorkload(String workload, List<Contender> all, Results results) throws IOException {
        int rounds = options.rounds();
        long window = options.iteration().toMillis();
        long warmup = warmup(all.get(0).group(), options.warmup()).toMillis();
        progress.start(workload, all.size() + " contenders, warm-up and " + rounds + " rounds");
        long t0 = System.nanoTime();
        List<Contender> live = new ArrayList<>();
        List<TurnProcess> procs = new ArrayList<>();
        Map<Contender, String> why = new LinkedHashMap<>();
        try {
            // start them all at once: they set up while nothing is measured
            for (Contender c : all) {
                if (c.skip() != null) {
                    why.put(c, c.skip());
                    continue;
                }
                Path log = logs.resolve(tag(workload + "-" + c.name()) + ".log");
                live.add(c);
                procs.add(TurnProcess.start(c.command(), log));
            }
            for (int i = 0; i < procs.size(); i++) {
                String f = procs.get(i).awaitReady();
                if (f != null) {
                    why.put(live.get(i), f);
                }
            }
            // warm-up: in turns as well, two halves, so no one's JIT runs during another's window
            for (int pass = 0; pass < 2; pass++) {
                for (TurnProcess p : procs) {
                    p.run(Math.max(1, warmup / 2));
                    progress.tick();
                }
            }
            List<List<Double>> samples = new ArrayList<>();
            procs.forEach(p -> samples.add(new ArrayList<>()));
            Rounds.run(rounds, procs.size(), (r, i) -> {
                double s = procs.get(i).run(window);
                if (!Double.isNaN(s) && samples.get(i).size() == r) {
                    samples.get(i).add(s * live.get(i).scale());
                }
                progress.tick();
            });
            for (int i = 0; i < live.size(); i++) {
                Contender c = live.get(i);
                String f = procs.get(i).failure();
                if (why.containsKey(c)) {
                    continue;
                }
                List<Double> got = samples.get(i);
                if (got.isEmpty()) {
                    why.put(c, f != null ? f : "failed: no window measured");
                    continue;
                }
                Row row = Row.of(c.group(), workload, c.name(), c.side(), c.unit(), got);
                results.add(f != null ? row.withNote(f + " (after " + got.size() + " rounds)") : row);
            }
        } finally {
            procs.forEach(TurnProcess::close);
        }
        for (Map.Entry<Contender, String> e : why.entrySet()) {
            Contender c = e.getKey();
            results.add(Row.unavailable(c.group(), workload, c.name(), c.side(), c.unit(), e.getValue()));
        }
        results.pairing(workload, String.format(Locale.ROOT, "%d rounds of one %d ms window per contender, in turns",
                rounds, window));
        progress.finish(String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - t0) / 1e9));
        for (Row r : results.rowsOf(workload)) {
            progress.note(String.format(Locale.ROOT, "      %-40s %s", r.contender(),
                    r.measured() ? Format.si(r.median()) + " " + r.unit() : r.note()));
        }
    }

    static String tag(String s) {
        return s.replaceAll("[^A-Za-z0-9]+", "-");
    }
}
