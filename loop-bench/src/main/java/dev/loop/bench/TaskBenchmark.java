package dev.loop.bench;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Promise;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Task switches, measured as the average time of one switch (suspend + resume) over a batch of
 * {@value #SWITCHES}, and spawning.
 *
 * <ul>
 *   <li>{@code yield}: tasks call {@link Async#yieldNow()}: 1 task, or 1000 tasks taking turns.</li>
 *   <li>{@code awaitCallback}: a task awaits a promise that a loop callback completes.</li>
 *   <li>{@code cfCompose}: the same steps as a {@link CompletableFuture#thenCompose} chain on the same
 *       loop: each step hands a {@code runAsync} to the loop (the yield) and composes the next step
 *       on it, so every step goes through the loop once, as a task's switch does.</li>
 *   <li>{@code spawn}: spawn {@value #SPAWNS} tasks that return at once, and wait for the last.</li>
 * </ul>
 * The mechanism is a parameter: {@code continuation} (needs the JVM flag the forks get) and the
 * no-flag fallback {@code threads}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class TaskBenchmark {
    static final int SWITCHES = 100_000;
    static final int SPAWNS = 100_000;

    @State(Scope.Benchmark)
    public static class Ours {
        @Param({"continuation", "threads"})
        String mechanism;

        @Param({"1", "1000"})
        int tasks;

        OurLoop running;
        final Signal done = new Signal();

        @Setup(Level.Trial)
        public void open() {
            System.setProperty("loop.tasks.mechanism", mechanism);
            running = new OurLoop(LoopOptions.defaults().withBackend("epoll"));
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }

        /** One way for a task to give up the loop and come back. */
        interface Switch {
            void once(Loop loop);
        }

        static final Switch YIELD = loop -> Async.yieldNow();
        static final Switch AWAIT_CALLBACK = loop -> {
            Promise<Integer> p = loop.newPromise();
            loop.callSoon(() -> p.complete(1));
            Async.await(p);
        };

        /** {@code tasks} tasks, each switching {@code SWITCHES / tasks} times, then the signal. */
        void switchBatch(Switch how) {
            Loop loop = running.loop;
            int each = SWITCHES / tasks;
            int[] left = {tasks};
            for (int t = 0; t < tasks; t++) {
                loop.spawn(() -> {
                    for (int i = 0; i < each; i++) {
                        how.once(loop);
                    }
                    if (--left[0] == 0) {
                        done.run();
                    }
                    return null;
                });
            }
        }

        void spawnBatch() {
            Loop loop = running.loop;
            int[] left = {SPAWNS};
            for (int i = 0; i < SPAWNS; i++) {
                loop.spawn(() -> {
                    if (--left[0] == 0) {
                        done.run();
                    }
                    return null;
                });
            }
        }
    }

    /** The CompletableFuture chains, on one of our loops so the hand-off matches. */
    @State(Scope.Benchmark)
    public static class Jdk {
        @Param({"1", "1000"})
        int chains;

        OurLoop running;
        final Signal done = new Signal();

        @Setup(Level.Trial)
        public void open() {
            running = new OurLoop(LoopOptions.defaults().withBackend("epoll"));
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }

        void composeBatch() {
            Loop loop = running.loop;
            int each = SWITCHES / chains;
            int[] left = {chains};
            Runnable noop = () -> { };
            for (int c = 0; c < chains; c++) {
                step(loop, noop, each).thenRun(() -> {
                    if (--left[0] == 0) {
                        done.run();
                    }
                });
            }
        }

        private static CompletableFuture<Void> step(Loop loop, Runnable noop, int remaining) {
            if (remaining == 0) {
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.runAsync(noop, loop).thenCompose(v -> step(loop, noop, remaining - 1));
        }
    }

    @Benchmark
    @OperationsPerInvocation(SWITCHES)
    public void yieldSwitch(Ours s) {
        s.running.loop.execute(() -> s.switchBatch(Ours.YIELD));
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(SWITCHES)
    public void awaitCallbackSwitch(Ours s) {
        s.running.loop.execute(() -> s.switchBatch(Ours.AWAIT_CALLBACK));
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(SWITCHES)
    public void cfComposeStep(Jdk s) {
        s.running.loop.execute(s::composeBatch);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(SPAWNS)
    public void spawnAndComplete(Ours s) {
        s.running.loop.execute(s::spawnBatch);
        s.done.await();
    }
}
