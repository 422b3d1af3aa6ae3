package dev.loop.bench;

import dev.loop.AsyncQueue;
import dev.loop.LoopOptions;
import dev.loop.QueueClosedException;
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
 * One producer task puts {@value #ITEMS} items into an {@link AsyncQueue}, one consumer task takes
 * them until the queue is closed and drained: the workload of the Python asyncio.Queue figures in
 * the anchors (1M items, unbounded and maxsize=128). One operation is one item.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class QueueBenchmark {
    static final int ITEMS = 1_000_000;
    static final Integer ITEM = 7;

    @State(Scope.Benchmark)
    public static class Ours {
        /** 0 means unbounded. */
        @Param({"0", "128"})
        int capacity;

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

        void pair() {
            AsyncQueue<Integer> q = capacity == 0 ? new AsyncQueue<>() : new AsyncQueue<>(capacity);
            running.loop.spawn(() -> {
                for (int i = 0; i < ITEMS; i++) {
                    q.put(ITEM);
                }
                q.close();
                return null;
            });
            running.loop.spawn(() -> {
                long sum = 0;
                try {
                    while (true) {
                        sum += q.take();
                    }
                } catch (QueueClosedException drained) {
                    done.run();
                }
                return sum;
            });
        }
    }

    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public void producerConsumer(Ours s) {
        s.running.loop.execute(s::pair);
        s.done.await();
    }
}
