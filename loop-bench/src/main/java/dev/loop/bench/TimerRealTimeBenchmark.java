package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.TimerHandle;
import io.netty.channel.IoEventLoop;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
 * Timers on the real clock, so that timer implementations without a fake clock (Netty's
 * {@link HashedWheelTimer}, the JDK's {@link ScheduledThreadPoolExecutor}) run the same workload
 * as the loops. One invocation is one round of {@code pending} timers; the score is rounds per
 * second, and the comparison command multiplies it by {@code pending} to get timers per second.
 *
 * <ul>
 *   <li><b>fire</b>: schedule {@code pending} timers with delays drawn from one seeded sequence,
 *       uniform in (0, 1 ms], and wait until every one fired. With a million timers scheduling
 *       takes far longer than 1 ms, so the round is the cost of scheduling plus firing; with ten
 *       thousand the last deadline bounds it from below, the same bound for everyone.
 *   <li><b>scheduleCancel</b>: schedule {@code pending} timers with delays uniform in
 *       [60 s, 120 s), so none can fire, then cancel every one. With a million, each insert and
 *       remove works on a queue of up to a million: this is where a wheel's O(1) should show.
 * </ul>
 *
 * <p>Who schedules: on the loops (ours and Netty's scheduled tasks) a task on the loop thread
 * schedules and cancels, as an application on a loop would; {@link HashedWheelTimer} and
 * {@link ScheduledThreadPoolExecutor} are called from the benchmark thread, as their documentation
 * intends (both are thread-safe and fire on a thread of their own). {@link HashedWheelTimer} removes
 * cancelled timeouts on its worker thread at its next tick, so that part of its cancel cost is
 * spent on the other core, outside the measured round.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class TimerRealTimeBenchmark {
    static final long MAX_FIRE_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long FAR_DELAY_NANOS = TimeUnit.SECONDS.toNanos(60);

    static long[] fireDelays(int n) {
        SplittableRandom random = new SplittableRandom(42);
        long[] d = new long[n];
        for (int i = 0; i < n; i++) {
            d[i] = 1 + random.nextLong(MAX_FIRE_DELAY_NANOS);
        }
        return d;
    }

    static long[] farDelays(int n) {
        SplittableRandom random = new SplittableRandom(43);
        long[] d = new long[n];
        for (int i = 0; i < n; i++) {
            d[i] = FAR_DELAY_NANOS + random.nextLong(FAR_DELAY_NANOS);
        }
        return d;
    }

    @State(Scope.Benchmark)
    public static class Ours {
        @Param({"select"})
        String backend;

        @Param({"heap"})
        String timers;

        @Param({"10000"})
        int pending;

        OurLoop running;
        long[] fire;
        long[] far;
        TimerHandle[] handles;
        final TimerBenchmark.Tick tick = new TimerBenchmark.Tick();
        final Signal cancelled = new Signal();
        Runnable fireRound;
        Runnable cancelRound;

        @Setup(Level.Trial)
        public void open() {
            running = new OurLoop(LoopOptions.defaults().withBackend(backend).withTimers(timers));
            fire = fireDelays(pending);
            far = farDelays(pending);
            handles = new TimerHandle[pending];
            Loop loop = running.loop;
            fireRound = () -> {
                tick.expect(pending);
                long now = loop.time();
                for (int i = 0; i < pending; i++) {
                    loop.callAt(now + fire[i], tick);
                }
            };
            cancelRound = () -> {
                long now = loop.time();
                for (int i = 0; i < pending; i++) {
                    handles[i] = loop.callAt(now + far[i], tick);
                }
                for (int i = 0; i < pending; i++) {
                    handles[i].cancel();
                    handles[i] = null;
                }
                cancelled.run();
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    @State(Scope.Benchmark)
    public static class NettyScheduled {
        @Param({"nio"})
        String transport;

        @Param({"10000"})
        int pending;

        NettyLoop running;
        long[] fire;
        long[] far;
        ScheduledFuture<?>[] handles;
        final TimerBenchmark.Tick tick = new TimerBenchmark.Tick();
        final Signal cancelled = new Signal();
        Runnable fireRound;
        Runnable cancelRound;

        @Setup(Level.Trial)
        public void open() {
            running = new NettyLoop(transport);
            fire = fireDelays(pending);
            far = farDelays(pending);
            handles = new ScheduledFuture<?>[pending];
            IoEventLoop loop = running.loop;
            fireRound = () -> {
                tick.expect(pending);
                for (int i = 0; i < pending; i++) {
                    loop.schedule(tick, fire[i], TimeUnit.NANOSECONDS);
                }
            };
            cancelRound = () -> {
                for (int i = 0; i < pending; i++) {
                    handles[i] = loop.schedule(tick, far[i], TimeUnit.NANOSECONDS);
                }
                for (int i = 0; i < pending; i++) {
                    handles[i].cancel(false);
                    handles[i] = null;
                }
                cancelled.run();
            };
        }

        @TearDown(Level.Trial)
        public void close() {
            running.close();
        }
    }

    /**
     * Netty's {@link HashedWheelTimer} with a 1 ms tick (its default of 100 ms would add up to a
     * tenth of a second to every fire round: its documentation says to pick the tick for the
     * precision needed) and the default 512 buckets; leak detection off.
     */
    @State(Scope.Benchmark)
    public static class NettyWheel {
        @Param({"10000"})
        int pending;

        HashedWheelTimer timer;
        long[] fire;
        long[] far;
        Timeout[] handles;
        final TimerBenchmark.Tick tick = new TimerBenchmark.Tick();
        TimerTask task;

        @Setup(Level.Trial)
        public void open() {
            timer = new HashedWheelTimer(Executors.defaultThreadFactory(), 1, TimeUnit.MILLISECONDS, 512, false);
            timer.start();
            fire = fireDelays(pending);
            far = farDelays(pending);
            handles = new Timeout[pending];
            task = t -> tick.run();
        }

        @TearDown(Level.Trial)
        public void close() {
            timer.stop();
        }
    }

    /** The JDK's {@link ScheduledThreadPoolExecutor}, one thread, removing cancelled tasks at once. */
    @State(Scope.Benchmark)
    public static class Jdk {
        @Param({"10000"})
        int pending;

        ScheduledThreadPoolExecutor executor;
        long[] fire;
        long[] far;
        java.util.concurrent.ScheduledFuture<?>[] handles;
        final TimerBenchmark.Tick tick = new TimerBenchmark.Tick();

        @Setup(Level.Trial)
        public void open() {
            executor = new ScheduledThreadPoolExecutor(1);
            // Without it a cancelled task stays queued until its delay passes (the JDK's own advice
            // for workloads that cancel many tasks).
            executor.setRemoveOnCancelPolicy(true);
            executor.prestartAllCoreThreads();
            fire = fireDelays(pending);
            far = farDelays(pending);
            handles = new java.util.concurrent.ScheduledFuture<?>[pending];
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            executor.shutdownNow();
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Benchmark
    public void loopFire(Ours s) {
        s.running.loop.execute(s.fireRound);
        s.tick.done.await();
    }

    @Benchmark
    public void loopScheduleCancel(Ours s) {
        s.running.loop.execute(s.cancelRound);
        s.cancelled.await();
    }

    @Benchmark
    public void nettyScheduledFire(NettyScheduled s) {
        s.running.loop.execute(s.fireRound);
        s.tick.done.await();
    }

    @Benchmark
    public void nettyScheduledScheduleCancel(NettyScheduled s) {
        s.running.loop.execute(s.cancelRound);
        s.cancelled.await();
    }

    @Benchmark
    public void nettyWheelFire(NettyWheel s) {
        s.tick.expect(s.pending);
        for (int i = 0; i < s.pending; i++) {
            s.timer.newTimeout(s.task, s.fire[i], TimeUnit.NANOSECONDS);
        }
        s.tick.done.await();
    }

    @Benchmark
    public void nettyWheelScheduleCancel(NettyWheel s) {
        for (int i = 0; i < s.pending; i++) {
            s.handles[i] = s.timer.newTimeout(s.task, s.far[i], TimeUnit.NANOSECONDS);
        }
        for (int i = 0; i < s.pending; i++) {
            s.handles[i].cancel();
            s.handles[i] = null;
        }
    }

    @Benchmark
    public void jdkFire(Jdk s) {
        s.tick.expect(s.pending);
        for (int i = 0; i < s.pending; i++) {
            s.executor.schedule(s.tick, s.fire[i], TimeUnit.NANOSECONDS);
        }
        s.tick.done.await();
    }

    @Benchmark
    public void jdkScheduleCancel(Jdk s) {
        for (int i = 0; i < s.pending; i++) {
            s.handles[i] = s.executor.schedule(s.tick, s.far[i], TimeUnit.NANOSECONDS);
        }
        for (int i = 0; i < s.pending; i++) {
            s.handles[i].cancel(false);
            s.handles[i] = null;
        }
    }
}
