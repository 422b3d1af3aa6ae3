package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopGroup;
import dev.loop.LoopMetrics;
import dev.loop.ManualClock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop's always-on metrics ({@link Loop#metrics()}), per backend and timer strategy. Durations
 * come from a manual clock that only the test moves, so they are exact: a callback that advances
 * the clock by 5 ms is an iteration of 5 ms busy time.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopMetricsContract extends LoopSuite {
    private static final long MS = 1_000_000;

    @Test
    void anIterationsBusyTimeIsWhatItsCallbacksTook() {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        loop.execute(() -> clock.advance(Duration.ofMillis(5)));
        spin(loop);
        LoopMetrics m = loop.metrics();
        assertEquals(5 * MS, m.iterationTime().maxNanos());
        assertEquals(5 * MS, m.busyNanos(), "no other time passed");
        assertEquals(0, m.idleNanos(), "the poll could not block: a stop was pending");
        assertEquals(1.0, m.busyRatio());
        assertTrue(m.iterationTime().p99Nanos() >= 5 * MS && m.iterationTime().p99Nanos() <= 5 * MS * 9 / 8,
                "p99 within one bucket (12.5%) above the value: " + m.iterationTime());
        assertEquals(m.iterations(), m.iterationTime().count(), "one value per iteration");
    }

    @Test
    void aCallbackQueuedBehindASlowBatchWaitsTheBatchOut() {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        loop.execute(() -> {
            loop.execute(() -> { }); // waits for the rest of this batch, then the next poll
            clock.advance(Duration.ofMillis(3));
        });
        spin(loop);
        spin(loop);
        LoopMetrics m = loop.metrics();
        assertEquals(3 * MS, m.schedulingLag().maxNanos(), "queued at the start of a 3 ms batch: " + m.schedulingLag());
        assertEquals(2, m.callbacks());
        assertEquals(1, m.readyDepthMax());
    }

    @Test
    void aBlockedPollIsIdleTimeAndTheTimerThatEndsItIsCounted() {
        ManualClock clock = ManualClock.autoAdvancing(); // an idle loop's wait moves the clock to the timer
        Loop loop = open(options().withClock(clock));
        loop.callLater(Duration.ofMillis(10), loop::stop);
        loop.callLater(Duration.ofMillis(20), () -> { });
        loop.runForever();
        LoopMetrics m = loop.metrics();
        assertEquals(10 * MS, m.idleNanos());
        assertEquals(0, m.busyNanos(), "the clock moved only while the loop waited");
        assertEquals(0.0, m.busyRatio());
        assertEquals(1, m.timersFired());
        assertEquals(1, m.timersPending());
    }

    @Test
    void submissionsFromOtherThreadsAreCountedAndAreAllOfABatch() {
        Loop loop = open();
        onAnotherThread(() -> {
            for (int i = 0; i < 5; i++) {
                loop.execute(() -> { });
            }
        });
        loop.execute(() -> { }); // queued behind them (loop thread is not running: another thread)
        spin(loop);
        LoopMetrics m = loop.metrics();
        assertEquals(6, m.fromOtherThreads());
        assertEquals(6, m.readyDepth());
        assertEquals(6, m.callbacks());
    }

    @Test
    void tasksAliveAndTheirTurnsAreCounted() {
        Loop loop = open(options().withClock(ManualClock.autoAdvancing()));
        AtomicLong aliveInside = new AtomicLong();
        loop.run(() -> {
            aliveInside.set(loop.metrics().tasksAlive());
            Async.sleep(Duration.ofMillis(1)); // a second turn
            return null;
        });
        LoopMetrics m = loop.metrics();
        assertEquals(1, aliveInside.get());
        assertEquals(0, m.tasksAlive());
        assertTrue(m.taskTurns() >= 2, "a turn before and one after the sleep: " + m.taskTurns());
    }

    @Test
    void aGroupSumsItsLoopsAndListsEach() throws Exception {
        try (LoopGroup group = LoopGroup.open(2, options())) {
            CountDownLatch ran = new CountDownLatch(20);
            for (Loop l : group.loops()) {
                for (int i = 0; i < 10; i++) {
                    l.execute(ran::countDown);
                }
            }
            assertTrue(ran.await(10, TimeUnit.SECONDS));
            assertEquals(2, group.metricsPerLoop().size());
            for (LoopMetrics m : group.metricsPerLoop()) {
                assertEquals(10, m.fromOtherThreads());
            }
            LoopMetrics sum = group.metrics();
            assertEquals(2, sum.loops());
            assertEquals(20, sum.fromOtherThreads());
            assertTrue(sum.callbacks() >= 20, "" + sum.callbacks());
        }
    }
}
