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
import org.openjdk.jmh.annotations.Threads;

/**
 * Target 2: submitting from threads other than the loop's. Each benchmark thread is a producer:
 * it submits {@value #BATCH} no-op callbacks and then its own signal, and waits until the signal
 * ran; both executors keep each producer's submissions in order, so all of its callbacks ran by
 * then. One operation is one submitted callback; with two or four producers JMH adds up their
 * threads (on a two-core machine four producers outnumber the cores: that is the contended case).
 * The wait bounds the queue, so this measures submit + wake-up + run, not an ever-growing backlog.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class CallSoonForeignBenchmark {
    static final int BATCH = 10_000;

    @State(Scope.Benchmark)
    public static class Ours extends OurLoopState {
    }

    @State(Scope.Benchmark)
    public static class Netty {
        @Param({"nio", "epoll"})
        String transport;

        NettyLoop running;

        @Setup(Level.Trial)
        public void open() {
            running = new NettyLoop(transport);
        }

        @TearDown(Level.Trial)
        public void close() {
            running.close();
        }
    }

    /** What one producer thread owns: its callback and its signal. */
    @State(Scope.Thread)
    public static class Producer {
        final NoOp noOp = new NoOp();
        final Signal done = new Signal();
    }

    static void produce(Loop loop, Producer p) {
        for (int i = 0; i < BATCH; i++) {
            loop.callSoon(p.noOp);
        }
        loop.callSoon(p.done);
        p.done.await();
    }

    static void produce(IoEventLoop loop, Producer p) {
        for (int i = 0; i < BATCH; i++) {
            loop.execute(p.noOp);
        }
        loop.execute(p.done);
        p.done.await();
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void loopCallSoon1Producer(Ours s, Producer p) {
        produce(s.running.loop, p);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(BATCH)
    public void loopCallSoon2Producers(Ours s, Producer p) {
        produce(s.running.loop, p);
    }

    @Benchmark
    @Threads(4)
    @OperationsPerInvocation(BATCH)
    public void loopCallSoon4Producers(Ours s, Producer p) {
        produce(s.running.loop, p);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void nettyExecute1Producer(Netty s, Producer p) {
        produce(s.running.loop, p);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(BATCH)
    public void nettyExecute2Producers(Netty s, Producer p) {
        produce(s.running.loop, p);
    }

    @Benchmark
    @Threads(4)
    @OperationsPerInvocation(BATCH)
    public void nettyExecute4Producers(Netty s, Producer p) {
        produce(s.running.loop, p);
    }
}
