package dev.loop.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Contenders measured in the same fork, in alternating batches: every invocation runs one batch
 * of each contender, in an order rotated every invocation, and times each batch on its own. On a
 * machine shared with other work a load spike then lands on every contender of a round, not on one
 * fork; the per-round ratios to the first contender are what this reports (median and quartiles, on
 * standard output at the end of the trial), beside each contender's median time per operation. The
 * JMH score is the time of one whole round and says little by itself.
 *
 * <p>Workloads ({@code workload}):
 * <ul>
 *   <li>{@code future}: {@link FutureBenchmark}'s promise + one callback + complete, against
 *       {@code CompletableFuture.thenAccept}. Not {@code thenAcceptAsync(cb, loop)}: its tasks would
 *       share the engine's callback call site with our promises and make it megamorphic, which
 *       slows ours in this fork only ({@link FutureBenchmark} measures it in a fork of its own).</li>
 *   <li>{@code switch}: the floor and the task switches of {@link TaskBenchmark}: a bare
 *       continuation run and yield on the benchmark thread, the same resumed through the loop's
 *       ready queue, {@code yieldNow}, an await of a callback, and the {@code thenCompose} chain.</li>
 *   <li>{@code spawn}: spawn-to-first-step in a chain, next to the bare continuation on the loop
 *       (a task's start is a continuation's first run plus a task's bookkeeping).</li>
 * </ul>
 * Run as {@code run.sh -f 1 -wi 3 -i 5 PairedBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class PairedBenchmark {

    /** One contender: a blocking batch of {@code ops} operations. */
    private record Contender(String name, int ops, Runnable batch, AutoCloseable closer) { }

    @State(Scope.Benchmark)
    public static class Round {
        @Param({"future", "switch", "spawn"})
        String workload;

        private final List<Contender> contenders = new ArrayList<>();
        /** samples[c][round]: ns per operation of contender c in that round. */
        private long[][] samples;
        private int rounds;
        private int rotation;
        private boolean measuring;

        @Setup(Level.Trial)
        public void open() {
            System.setProperty("loop.tasks.mechanism", "continuation");
            switch (workload) {
                case "future" -> {
                    FutureBenchmark.Ours ours = new FutureBenchmark.Ours();
                    ours.backend = "epoll";
                    ours.timers = "heap";
                    ours.open();
                    add("loop promise + onDone + complete", FutureBenchmark.BATCH, () -> {
                        ours.running.loop.execute(ours.batch);
                        ours.done.await();
                    }, ours::close);
                    FutureBenchmark.Jdk jdk = new FutureBenchmark.Jdk();
                    jdk.open();
                    add("CompletableFuture thenAccept", FutureBenchmark.BATCH, () -> {
                        jdk.running.loop.execute(jdk.thenAccept);
                        jdk.done.await();
                    }, jdk::close);
                }
                case "switch" -> {
                    TaskBenchmark.Bare bare = new TaskBenchmark.Bare();
                    bare.open();
                    add("bare continuation run+yield", TaskBenchmark.SWITCHES, () -> {
                        Object c = bare.spinning;
                        for (int i = 0; i < TaskBenchmark.SWITCHES; i++) {
                            TaskBenchmark.Bare.run(c);
                        }
                    }, bare::close);
                    add("bare continuation via callSoon", TaskBenchmark.SWITCHES, () -> {
                        bare.running.loop.execute(bare.onLoop);
                        bare.done.await();
                    }, null);
                    TaskBenchmark.Ours ours = new TaskBenchmark.Ours();
                    ours.mechanism = "continuation";
                    ours.tasks = 1;
                    ours.open();
                    add("task yieldNow", TaskBenchmark.SWITCHES, () -> {
                        ours.running.loop.execute(() -> ours.switchBatch(TaskBenchmark.Ours.YIELD));
                        ours.done.await();
                    }, ours::close);
                    add("task await of a callback", TaskBenchmark.SWITCHES, () -> {
                        ours.running.loop.execute(() -> ours.switchBatch(TaskBenchmark.Ours.AWAIT_CALLBACK));
                        ours.done.await();
                    }, null);
                    TaskBenchmark.AwaitDone done = new TaskBenchmark.AwaitDone();
                    done.open();
                    add("task await of a done future", TaskBenchmark.SWITCHES, () -> {
                        done.running.loop.spawn(done.body);
                        done.done.await();
                    }, done::close);
                    TaskBenchmark.Jdk jdk = new TaskBenchmark.Jdk();
                    jdk.chains = 1;
                    jdk.open();
                    add("CompletableFuture thenCompose step", TaskBenchmark.SWITCHES, () -> {
                        jdk.running.loop.execute(jdk::composeBatch);
                        jdk.done.await();
                    }, jdk::close);
                }
                case "spawn" -> {
                    TaskBenchmark.Bare bare = new TaskBenchmark.Bare();
                    bare.open();
                    add("bare continuation via callSoon", TaskBenchmark.SWITCHES, () -> {
                        bare.running.loop.execute(bare.onLoop);
                        bare.done.await();
                    }, bare::close);
                    TaskBenchmark.Chain chain = new TaskBenchmark.Chain();
                    chain.open();
                    add("spawn to first step (chain)", TaskBenchmark.SPAWNS, () -> {
                        chain.running.loop.execute(chain.start);
                        chain.done.await();
                    }, chain::close);
                    TaskBenchmark.Ours ours = new TaskBenchmark.Ours();
                    ours.mechanism = "continuation";
                    ours.tasks = 1;
                    ours.open();
                    add("spawn, batch of 100,000", TaskBenchmark.SPAWNS, () -> {
                        ours.running.loop.execute(ours::spawnBatch);
                        ours.done.await();
                    }, ours::close);
                }
                default -> throw new IllegalArgumentException("unknown workload " + workload);
            }
            samples = new long[contenders.size()][1024];
        }

        private void add(String name, int ops, Runnable batch, AutoCloseable closer) {
            contenders.add(new Contender(name, ops, batch, closer));
        }

        /** Only measurement iterations are recorded; warm-up rounds run but are not kept. */
        @Setup(Level.Iteration)
        public void iteration(org.openjdk.jmh.infra.IterationParams params) {
            measuring = params.getType() == org.openjdk.jmh.runner.IterationType.MEASUREMENT;
        }

        void round() {
            int n = contenders.size();
            int first = rotation++ % n;
            for (int k = 0; k < n; k++) {
                int c = (first + k) % n;
                Contender who = contenders.get(c);
                long start = System.nanoTime();
                who.batch.run();
                long perOp = (System.nanoTime() - start) * 1000 / who.ops; // picoseconds per op
                if (measuring) {
                    if (rounds == samples[c].length) {
                        for (int i = 0; i < n; i++) {
                            samples[i] = Arrays.copyOf(samples[i], rounds * 2);
                        }
                    }
                    samples[c][rounds] = perOp;
                }
            }
            if (measuring) {
                rounds++;
            }
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            report();
            for (Contender c : contenders) {
                if (c.closer != null) {
                    c.closer.close();
                }
            }
        }

        private void report() {
            StringBuilder out = new StringBuilder();
            out.append(String.format(Locale.ROOT, "%n[paired %s] %d rounds, each contender once per round, order"
                    + " rotated; ratio = median (quartiles) of per-round time / time of \"%s\"%n",
                    workload, rounds, contenders.get(0).name));
            for (int c = 0; c < contenders.size(); c++) {
                long[] mine = Arrays.copyOf(samples[c], rounds);
                double[] ratio = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    ratio[r] = (double) samples[c][r] / samples[0][r];
                }
                Arrays.sort(mine);
                Arrays.sort(ratio);
                out.append(String.format(Locale.ROOT, "[paired %s] %-36s %9.1f ns/op   x%.2f (%.2f-%.2f)%n",
                        workload, contenders.get(c).name, rounds == 0 ? 0 : mine[rounds / 2] / 1000.0,
                        q(ratio, 2), q(ratio, 1), q(ratio, 3)));
            }
            System.out.print(out);
        }

        private static double q(double[] sorted, int quartile) {
            return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, sorted.length * quartile / 4)];
        }
    }

    @Benchmark
    public void round(Round s) {
        s.round();
    }
}
