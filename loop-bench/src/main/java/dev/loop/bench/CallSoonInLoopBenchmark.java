package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import io.netty.channel.IoEventLoop;
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
 * Target 1: scheduling a callback from inside the loop. One operation is one callback: a task on
 * the loop submits {@value #BATCH} no-op callbacks (one preallocated instance) and then a signal;
 * the benchmark thread waits until the signal ran, so every callback was also run. Ours uses
 * {@link Loop#callSoon}, Netty {@code execute()} from a task running in its own loop.
 *
 * <p>Both sides run one batch, {@linkplain #age age the heap} and then make the callback they
 * submit, so that what the loop allocated when it opened (its queues) is old and the callback
 * young, as in a server that has run for a while and schedules callbacks it just made: under G1
 * a reference to a young object stored into an old one costs more than into a young one
 * (docs/BENCHMARKS.md, "The ready queue kept young").
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class CallSoonInLoopBenchmark {
    static final int BATCH = 10_000;

    @State(Scope.Benchmark)
    public static class Ours extends OurLoopState {
        NoOp noOp = new NoOp();
        final Signal done = new Signal();
        Runnable batch;

        @Override
        protected void prepare(Loop loop) {
            batch = () -> {
                for (int i = 0; i < BATCH; i++) {
                    loop.callSoon(noOp);
                }
                loop.callSoon(done);
            };
            loop.execute(batch);
            done.await();
            age();
            noOp = new NoOp();
        }
    }

    @State(Scope.Benchmark)
    public static class Netty {
        @Param({"nio", "epoll"})
        String transport;

        NettyLoop running;
        NoOp noOp = new NoOp();
        final Signal done = new Signal();
        Runnable batch;

        @Setup(Level.Trial)
        public void open() {
            running = new NettyLoop(transport);
            IoEventLoop loop = running.loop;
            batch = () -> {
                for (int i = 0; i < BATCH; i++) {
                    loop.execute(noOp);
                }
                loop.execute(done);
            };
            loop.execute(batch);
            done.await();
            age();
            noOp = new NoOp();
        }

        @TearDown(Level.Trial)
        public void close() {
            running.close();
        }
    }

    /** Two full collections: everything alive now is in the old generation afterwards. */
    static void age() {
        System.gc();
        System.gc();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void loopCallSoon(Ours s) {
        s.running.loop.execute(s.batch);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void nettyExecute(Netty s) {
        s.running.loop.execute(s.batch);
        s.done.await();
    }
}
