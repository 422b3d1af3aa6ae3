package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.TimerHandle;
import io.netty.channel.IoEventLoop;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Target 3: {@value #TIMERS} timers with random delays in (0, 1 s], scheduled from a task on the
 * loop and then fired; and the same with 90% of them cancelled before they fire. One operation is
 * one timer; the score is the time for the whole round (schedule, cancel, fire) divided by
 * {@value #TIMERS}.
 *
 * <p>Time is fake on both sides, so neither waits for real: our loop runs on a {@link ManualClock},
 * Netty's on its own {@link Ticker#newMockTicker() mock ticker} (Netty's hook for fake time,
 * {@code ticker()} overridden). After scheduling, the same task moves the clock forward by 1 s in
 * one step, so every timer is due and each loop fires them at its own pace: ours at most
 * {@link LoopOptions#DEFAULT_MAX_TIMERS_PER_ITERATION} per iteration, Netty all due tasks in one
 * fetch. Both get the same delays (one seeded sequence) and schedule with a primitive deadline
 * ({@link Loop#callAt}, {@code schedule(task, delay, NANOSECONDS)}), so neither allocates a
 * {@code Duration} per timer.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class TimerBenchmark {
    static final int TIMERS = 1_000_000;
    static final long MAX_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Every tenth timer survives the cancel round: 90% are cancelled. */
    static final int KEEP_EVERY = 10;

    /** The same delays for every implementation, in (0, 1 s]. */
    static long[] delays() {
        SplittableRandom random = new SplittableRandom(42);
        long[] d = new long[TIMERS];
        for (int i = 0; i < TIMERS; i++) {
            d[i] = 1 + random.nextLong(MAX_DELAY_NANOS);
        }
        return d;
    }

    /** Counts fired timers on the loop thread and raises the signal at the expected count. */
    static final class Tick implements Runnable {
        final Signal done = new Signal();
        long fired;
        long expected;

        void expect(long n) {
            fired = 0;
            expected = n;
        }

        @Override
        public void run() {
            if (++fired == expected) {
                done.run();
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Ours {
        @Param({"select", "epoll"})
        String backend;

        OurLoop running;
        ManualClock clock;
        final long[] delays = delays();
        final TimerHandle[] handles = new TimerHandle[TIMERS];
        final Tick tick = new Tick();
        Runnable fireAll;
        Runnable cancelMost;

        @Setup(Level.Trial)
        public void open() {
            clock = ManualClock.create();
            running = new OurLoop(LoopOptions.defaults().withBackend(backend).withClock(clock));
            Loop loop = running.loop;
            fireAll = () -> {
                tick.expect(TIMERS);
                long now = loop.time();
                for (int i = 0; i < TIMERS; i++) {
                    loop.callAt(now + delays[i], tick);
                }
                clock.advanceNanos(MAX_DELAY_NANOS);
            };
            cancelMost = () -> {
                tick.expect(TIMERS / KEEP_EVERY);
                long now = loop.time();
                for (int i = 0; i < TIMERS; i++) {
                    handles[i] = loop.callAt(now + delays[i], tick);
                }
                for (int i = 0; i < TIMERS; i++) {
                    if (i % KEEP_EVERY != 0) {
                        handles[i].cancel();
                    }
                    handles[i] = null;
                }
                clock.advanceNanos(MAX_DELAY_NANOS);
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Netty {
        @Param({"nio", "epoll"})
        String transport;

        NettyLoop running;
        MockTicker ticker;
        final long[] delays = delays();
        final ScheduledFuture<?>[] handles = new ScheduledFuture<?>[TIMERS];
        final Tick tick = new Tick();
        Runnable fireAll;
        Runnable cancelMost;

        @Setup(Level.Trial)
        public void open() {
            ticker = Ticker.newMockTicker();
            running = new NettyLoop(transport, ticker);
            IoEventLoop loop = running.loop;
            fireAll = () -> {
                tick.expect(TIMERS);
                for (int i = 0; i < TIMERS; i++) {
                    loop.schedule(tick, delays[i], TimeUnit.NANOSECONDS);
                }
                ticker.advance(MAX_DELAY_NANOS, TimeUnit.NANOSECONDS);
            };
            cancelMost = () -> {
                tick.expect(TIMERS / KEEP_EVERY);
                for (int i = 0; i < TIMERS; i++) {
                    handles[i] = loop.schedule(tick, delays[i], TimeUnit.NANOSECONDS);
                }
                for (int i = 0; i < TIMERS; i++) {
                    if (i % KEEP_EVERY != 0) {
                        handles[i].cancel(false);
                    }
                    handles[i] = null;
                }
                ticker.advance(MAX_DELAY_NANOS, TimeUnit.NANOSECONDS);
            };
        }

        @TearDown(Level.Trial)
        public void close() {
            running.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(TIMERS)
    public void loopScheduleFire(Ours s) {
        s.running.loop.execute(s.fireAll);
        s.tick.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(TIMERS)
    public void loopScheduleCancel90(Ours s) {
        s.running.loop.execute(s.cancelMost);
        s.tick.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(TIMERS)
    public void nettyScheduleFire(Netty s) {
        s.running.loop.execute(s.fireAll);
        s.tick.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(TIMERS)
    public void nettyScheduleCancel90(Netty s) {
        s.running.loop.execute(s.cancelMost);
        s.tick.done.await();
    }
}
