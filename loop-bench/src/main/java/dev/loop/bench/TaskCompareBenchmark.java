package dev.loop.bench;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.TaskBody;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Tasks: switching (suspend and resume) and spawning.
 *
 * <ul>
 *   <li><b>switch</b>, one operation = one suspend/resume: a task calls {@link Async#yieldNow()}
 *       {@value #BATCH} times (asyncio's {@code await sleep(0)}). The peer is a
 *       {@link CompletableFuture} chain of {@value #BATCH} {@code thenComposeAsync} steps on the
 *       same kind of loop thread, each step handed to the loop as an executor, which is what a
 *       hop costs when continuations are written as futures.
 *   <li><b>spawn</b>, one operation = one task started, suspended once and finished: a callback on
 *       the loop spawns {@value #BATCH} tasks that each yield once and count themselves (asyncio's
 *       "gather 100k tasks that each sleep(0)"). The peer starts {@value #BATCH} virtual threads
 *       that each {@link Thread#yield()} once and count themselves, on the JDK's default scheduler.
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class TaskCompareBenchmark {
    static final int BATCH = 10_000;

    @State(Scope.Benchmark)
    public static class Ours {
        @Param({"select"})
        String backend;

        @Param({"heap"})
        String timers;

        OurLoop running;
        final Signal done = new Signal();
        TaskBody<Void> switcher;
        Runnable spawnBatch;
        int finished; // loop thread only

        @Setup(Level.Trial)
        public void open() {
            running = new OurLoop(LoopOptions.defaults().withBackend(backend).withTimers(timers));
            Loop loop = running.loop;
            switcher = () -> {
                for (int i = 0; i < BATCH; i++) {
                    Async.yieldNow();
                }
                done.run();
                return null;
            };
            TaskBody<Void> child = () -> {
                Async.yieldNow();
                if (++finished == BATCH) {
                    done.run();
                }
                return null;
            };
            spawnBatch = () -> {
                finished = 0;
                for (int i = 0; i < BATCH; i++) {
                    loop.spawn(child);
                }
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    /** CompletableFuture chains driven by one of our loops (select) used as a plain executor. */
    @State(Scope.Benchmark)
    public static class Chain {
        OurLoop running;
        final Signal done = new Signal();
        Runnable start;

        @Setup(Level.Trial)
        public void open() {
            running = new OurLoop(LoopOptions.defaults().withBackend("select"));
            Loop loop = running.loop;
            start = () -> step(loop, BATCH);
        }

        private CompletableFuture<Integer> step(Loop loop, int remaining) {
            if (remaining == 0) {
                done.run();
                return CompletableFuture.completedFuture(0);
            }
            return CompletableFuture.completedFuture(remaining - 1).thenComposeAsync(r -> step(loop, r), loop);
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Virtual {
        final Signal done = new Signal();
        final AtomicInteger remaining = new AtomicInteger();
        final Runnable child = () -> {
            Thread.yield();
            if (remaining.decrementAndGet() == 0) {
                done.run();
            }
        };
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void loopTaskSwitch(Ours s) {
        s.running.loop.spawn(s.switcher);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void cfThenComposeChain(Chain s) {
        s.running.loop.execute(s.start);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void loopTaskSpawn(Ours s) {
        s.running.loop.execute(s.spawnBatch);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void virtualThreadSpawn(Virtual s) {
        s.remaining.set(BATCH);
        for (int i = 0; i < BATCH; i++) {
            Thread.startVirtualThread(s.child);
        }
        s.done.await();
    }
}
