package dev.loop.bench;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Promise;
import dev.loop.TaskBody;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
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
 *   <li>{@code spawnLatency}: from {@code spawn} to the first line of the body, one task at a time:
 *       each task's body spawns the next and returns, {@value #SPAWNS} in a chain, so a spawn's
 *       start waits for the previous one (one loop iteration, the continuation's first run, and
 *       the previous task's completion).</li>
 *   <li>{@code awaitDone}: a task awaits a future that is already done, which must not suspend.</li>
 *   <li>The floor under a task switch, in the same run: {@code bareContinuation}, a
 *       {@code jdk.internal.vm.Continuation} that yields in a loop, run again at once by the
 *       benchmark thread (reached through method handles, as the loop's mechanism does); and
 *       {@code bareContinuationOnLoop}, the same continuation resumed by a callback it schedules
 *       with {@code callSoon} before each yield: the least a task switch through the ready queue
 *       can cost.</li>
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

    /** A task chain in which each task spawns the next: the spawn-to-first-step latency. */
    @State(Scope.Benchmark)
    public static class Chain {
        OurLoop running;
        final Signal done = new Signal();
        int left; // loop thread only
        TaskBody<Void> link;
        Runnable start;

        @Setup(Level.Trial)
        public void open() {
            System.setProperty("loop.tasks.mechanism", "continuation");
            running = new OurLoop(LoopOptions.defaults().withBackend("epoll"));
            Loop loop = running.loop;
            link = () -> {
                if (--left == 0) {
                    done.run();
                } else {
                    loop.spawn(link);
                }
                return null;
            };
            start = () -> {
                left = SPAWNS;
                loop.spawn(link);
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    /** One task awaiting a future that is already done, {@value #SWITCHES} times. */
    @State(Scope.Benchmark)
    public static class AwaitDone {
        OurLoop running;
        final Signal done = new Signal();
        TaskBody<Void> body;
        long sum; // loop thread only

        @Setup(Level.Trial)
        public void open() {
            System.setProperty("loop.tasks.mechanism", "continuation");
            running = new OurLoop(LoopOptions.defaults().withBackend("epoll"));
            Loop loop = running.loop;
            Promise<Integer> ready = loop.newPromise();
            ready.complete(1);
            body = () -> {
                long before = loop.diagnostics().iterations();
                for (int i = 0; i < SWITCHES; i++) {
                    sum += Async.await(ready);
                }
                if (loop.diagnostics().iterations() != before) {
                    throw new IllegalStateException("awaiting a done future suspended the task");
                }
                done.run();
                return null;
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    /**
     * The continuation under every task, without the task: {@code jdk.internal.vm.Continuation}
     * through method handles resolved once (constants to the JIT, as in the loop's mechanism).
     */
    @State(Scope.Benchmark)
    public static class Bare {
        static final Object SCOPE;
        static final MethodHandle NEW;   // (Object scope, Runnable) Object
        static final MethodHandle RUN;   // (Object) void
        static final MethodHandle YIELD; // (Object scope) boolean

        static {
            try {
                Class<?> scopeClass = Class.forName("jdk.internal.vm.ContinuationScope");
                Class<?> contClass = Class.forName("jdk.internal.vm.Continuation");
                MethodHandles.Lookup l = MethodHandles.lookup();
                SCOPE = l.findConstructor(scopeClass, MethodType.methodType(void.class, String.class)).invoke("bench");
                NEW = l.findConstructor(contClass, MethodType.methodType(void.class, scopeClass, Runnable.class))
                        .asType(MethodType.methodType(Object.class, Object.class, Runnable.class));
                RUN = l.findVirtual(contClass, "run", MethodType.methodType(void.class))
                        .asType(MethodType.methodType(void.class, Object.class));
                YIELD = l.findStatic(contClass, "yield", MethodType.methodType(boolean.class, scopeClass))
                        .asType(MethodType.methodType(boolean.class, Object.class));
            } catch (Throwable t) {
                throw new ExceptionInInitializerError(t);
            }
        }

        static void run(Object continuation) {
            try {
                RUN.invokeExact(continuation);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        static void yieldNow() {
            try {
                boolean yielded = (boolean) YIELD.invokeExact(SCOPE);
                if (!yielded) {
                    throw new IllegalStateException("pinned");
                }
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        static Object create(Runnable body) {
            try {
                return (Object) NEW.invokeExact(SCOPE, body);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        /** Yields forever; run by the benchmark thread. */
        Object spinning;
        OurLoop running;
        final Signal done = new Signal();
        /** Yields {@value #SWITCHES} times, each time after scheduling its own resumption. */
        Runnable onLoop;

        @Setup(Level.Trial)
        public void open() {
            spinning = create(() -> {
                for (;;) {
                    yieldNow();
                }
            });
            running = new OurLoop(LoopOptions.defaults().withBackend("epoll"));
            Loop loop = running.loop;
            onLoop = () -> {
                Object[] self = new Object[1];
                Runnable resume = () -> run(self[0]);
                self[0] = create(() -> {
                    for (int i = 0; i < SWITCHES; i++) {
                        loop.callSoon(resume);
                        yieldNow();
                    }
                    done.run();
                });
                run(self[0]);
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
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
    public void spawnLatency(Chain s) {
        s.running.loop.execute(s.start);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(SWITCHES)
    public void awaitDone(AwaitDone s) {
        s.running.loop.spawn(s.body);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(SWITCHES)
    public void bareContinuation(Bare s) {
        Object c = s.spinning;
        for (int i = 0; i < SWITCHES; i++) {
            Bare.run(c);
        }
    }

    @Benchmark
    @OperationsPerInvocation(SWITCHES)
    public void bareContinuationOnLoop(Bare s) {
        s.running.loop.execute(s.onLoop);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(SPAWNS)
    public void spawnAndComplete(Ours s) {
        s.running.loop.execute(s::spawnBatch);
        s.done.await();
    }
}
