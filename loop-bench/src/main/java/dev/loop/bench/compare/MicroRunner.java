package dev.loop.bench.compare;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH benchmarks of {@code dev.loop.bench} for the comparison, one benchmark method at a
 * time with the parameters the plan asks for, and turns every parameter combination into a
 * {@link Row}: one score per measured iteration. Every contender of a workload gets the same fork
 * count, warm-up and iterations, and runs in a fresh JVM (one fork).
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
    record Case(String group, String method, Row.Side side, Function<BenchmarkParams, String> workload,
                Function<BenchmarkParams, String> contender, String unit, Map<String, List<String>> params,
                Function<BenchmarkParams, Double> scale) {

        int combinations() {
            return params.values().stream().mapToInt(List::size).reduce(1, (a, b) -> a * b);
        }
    }

    /** What each case needs to know about the machine and the options. */
    record Plan(List<String> backends, List<String> allTimers, List<String> defaultTimers, List<String> nettyTransports,
                List<Integer> pending, boolean full, boolean peers) {
    }

    static String ours(BenchmarkParams p) {
        return "loop " + p.getParam("backend") + "/" + p.getParam("timers");
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
        Map<String, List<String>> oursParams = Map.of("backend", plan.backends(), "timers", plan.defaultTimers());
        Map<String, List<String>> netty = Map.of("transport", plan.nettyTransports());
        Function<BenchmarkParams, Double> one = p -> 1.0;
        if (o.runs("callsoon")) {
            String w = "callSoon in-loop";
            out.add(new Case("callsoon", "CallSoonInLoopBenchmark.loopCallSoon", Row.Side.OURS, p -> w,
                    MicroRunner::ours, "callbacks/s", oursParams, one));
            out.add(new Case("callsoon", "CallSoonInLoopBenchmark.nettyExecute", Row.Side.PEER, p -> w,
                    p -> "netty " + p.getParam("transport"), "callbacks/s", netty, one));
        }
        if (o.runs("callsoon-foreign")) {
            List<String> producers = plan.full() ? List.of("1Producer", "2Producers") : List.of("1Producer");
            for (String n : producers) {
                String w = "callSoon foreign, " + n.charAt(0) + (n.charAt(0) == '1' ? " producer" : " producers");
                out.add(new Case("callsoon-foreign", "CallSoonForeignBenchmark.loopCallSoon" + n, Row.Side.OURS,
                        p -> w, MicroRunner::ours, "callbacks/s", oursParams, one));
                out.add(new Case("callsoon-foreign", "CallSoonForeignBenchmark.nettyExecute" + n, Row.Side.PEER,
                        p -> w, p -> "netty " + p.getParam("transport"), "callbacks/s", netty, one));
            }
        }
        if (o.runs("timers")) {
            List<String> pending = plan.pending().stream().map(String::valueOf).toList();
            Map<String, List<String>> timerOurs = Map.of("backend", plan.backends(), "timers", plan.allTimers(),
                    "pending", pending);
            Map<String, List<String>> timerNetty = Map.of("transport", plan.nettyTransports(), "pending", pending);
            Map<String, List<String>> timerOther = Map.of("pending", pending);
            Function<BenchmarkParams, Double> perTimer = p -> Double.parseDouble(p.getParam("pending"));
            for (String[] kind : new String[][] {{"Fire", "timers fire"}, {"ScheduleCancel", "timers schedule+cancel"}}) {
                Function<BenchmarkParams, String> w = p -> kind[1] + ", "
                        + pendingLabel(Integer.parseInt(p.getParam("pending"))) + " pending";
                String k = kind[0];
                out.add(new Case("timers", "TimerRealTimeBenchmark.loop" + k, Row.Side.OURS, w, MicroRunner::ours,
                        "timers/s", timerOurs, perTimer));
                out.add(new Case("timers", "TimerRealTimeBenchmark.nettyScheduled" + k, Row.Side.PEER, w,
                        p -> "netty " + p.getParam("transport") + " schedule", "timers/s", timerNetty, perTimer));
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

    static final String QUEUE_WORKLOAD = "queue 128, 1 producer/1 consumer";

    private final CompareOptions options;
    private final Progress progress;

    MicroRunner(CompareOptions options, Progress progress) {
        this.options = options;
        this.progress = progress;
    }

    /** Runs every case and adds its rows to {@code results}; a failed combination becomes a row saying so. */
    void run(List<Case> cases, Results results) {
        for (Case c : cases) {
            ChainedOptionsBuilder b = new OptionsBuilder()
                    .include("^" + (PKG + c.method()).replace(".", "\\.") + "$")
                    .forks(1)
                    .warmupIterations(1)
                    .warmupTime(TimeValue.milliseconds(options.warmup().toMillis()))
                    .measurementIterations(options.iterations())
                    .measurementTime(TimeValue.milliseconds(options.iteration().toMillis()))
                    .timeout(TimeValue.seconds(120))
                    .shouldFailOnError(false);
            c.params().forEach((k, v) -> b.param(k, v.toArray(String[]::new)));
            Listener listener = new Listener(c);
            Collection<RunResult> runs;
            try {
                runs = new Runner(b.build(), listener).run();
            } catch (RunnerException e) {
                progress.note("JMH failed for " + c.method() + ": " + e.getMessage());
                runs = List.of();
            }
            for (RunResult rr : runs) {
                BenchmarkParams p = rr.getParams();
                List<Double> samples = new ArrayList<>();
                double scale = c.scale().apply(p);
                for (BenchmarkResult br : rr.getBenchmarkResults()) {
                    for (IterationResult ir : br.getIterationResults()) {
                        samples.add(ir.getPrimaryResult().getScore() * scale);
                    }
                }
                listener.done.add(p.id());
                results.add(Row.of(c.group(), c.workload().apply(p), c.contender().apply(p), c.side(), c.unit(), samples));
            }
            for (Map.Entry<String, BenchmarkParams> started : listener.started.entrySet()) {
                if (!listener.done.contains(started.getKey())) {
                    BenchmarkParams p = started.getValue();
                    results.add(Row.unavailable(c.group(), c.workload().apply(p), c.contender().apply(p), c.side(),
                            c.unit(), "failed: " + (listener.lastError == null ? "see the log" : listener.lastError)));
                }
            }
        }
    }

    /** JMH's output, reduced to one progress line per finished combination. */
    private final class Listener implements OutputFormat {
        final Case c;
        final Map<String, BenchmarkParams> started = new LinkedHashMap<>();
        final java.util.Set<String> done = new java.util.HashSet<>();
        String lastError;
        long startNanos;

        Listener(Case c) {
            this.c = c;
        }

        @Override
        public void startBenchmark(BenchmarkParams p) {
            started.put(p.id(), p);
            startNanos = System.nanoTime();
            progress.start(c.workload().apply(p), c.contender().apply(p));
        }

        @Override
        public void endBenchmark(BenchmarkResult result) {
            if (result == null) {
                progress.finish("failed" + (lastError == null ? "" : ": " + lastError));
                return;
            }
            double scale = c.scale().apply(result.getParams());
            double score = result.getPrimaryResult().getScore() * scale;
            progress.finish(Format.si(score) + " " + c.unit() + String.format(Locale.ROOT, "  (%.1f s)",
                    (System.nanoTime() - startNanos) / 1e9));
        }

        @Override
        public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
        }

        @Override
        public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration,
                                    IterationResult data) {
            progress.tick();
        }

        @Override
        public void startRun() {
        }

        @Override
        public void endRun(Collection<RunResult> result) {
        }

        @Override
        public void print(String s) {
            remember(s);
        }

        @Override
        public void println(String s) {
            remember(s);
        }

        private void remember(String s) {
            if (s == null) {
                return;
            }
            for (String line : s.split("\n")) {
                String t = line.trim();
                if (t.matches("^([a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(Exception|Error)(:.*)?$")) {
                    lastError = t.length() > 200 ? t.substring(0, 200) : t;
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public void verbosePrintln(String s) {
        }

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b) throws IOException {
        }
    }
}
