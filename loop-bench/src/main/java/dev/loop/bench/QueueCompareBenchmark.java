package dev.loop.bench;

import dev.loop.sync.AsyncQueue;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.TaskBody;
import java.util.concurrent.ArrayBlockingQueue;
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
 * A bounded queue (capacity {@value #CAPACITY}) between one producer and one consumer; one
 * operation is one item handed over. Ours: an {@link AsyncQueue} between two tasks on one loop,
 * asyncio's {@code Queue(maxsize=128)} with {@code await put} / {@code await get}. The JDK peer:
 * an {@link ArrayBlockingQueue} of the same capacity between two platform threads (the benchmark
 * thread puts, a consumer thread takes), the JDK's standard bounded hand-off.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class QueueCompareBenchmark {
    static final int BATCH = 100_000;
    static final int CAPACITY = 128;
    static final Object ITEM = "item";

    @State(Scope.Benchmark)
    public static class Ours {
        @Param({"select"})
        String backend;

        @Param({"heap"})
        String timers;

        OurLoop running;
        final Signal done = new Signal();
        Runnable round;

        @Setup(Level.Trial)
        public void open() {
            running = new OurLoop(LoopOptions.defaults().withBackend(backend).withTimers(timers));
            Loop loop = running.loop;
            AsyncQueue<Object> queue = new AsyncQueue<>(CAPACITY);
            TaskBody<Void> producer = () -> {
                for (int i = 0; i < BATCH; i++) {
                    queue.put(ITEM);
                }
                return null;
            };
            TaskBody<Void> consumer = () -> {
                for (int i = 0; i < BATCH; i++) {
                    queue.take();
                }
                done.run();
                return null;
            };
            round = () -> {
                loop.spawn(consumer);
                loop.spawn(producer);
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Jdk {
        final ArrayBlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY);
        final Signal done = new Signal();
        Thread consumer;

        @Setup(Level.Trial)
        public void open() {
            consumer = new Thread(() -> {
                long taken = 0;
                try {
                    while (true) {
                        queue.take();
                        if (++taken % BATCH == 0) {
                            done.run();
                        }
                    }
                } catch (InterruptedException e) {
                    // torn down
                }
            }, "queue-consumer");
            consumer.setDaemon(true);
            consumer.start();
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            consumer.interrupt();
            consumer.join();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void loopAsyncQueue(Ours s) {
        s.running.loop.execute(s.round);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void jdkArrayBlockingQueue(Jdk s) throws InterruptedException {
        for (int i = 0; i < BATCH; i++) {
            s.queue.put(ITEM);
        }
        s.done.await();
    }
}
