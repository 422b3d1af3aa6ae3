package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.ManualClock;
import dev.loop.TimerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Timers: deadline order with ties in scheduling order, never early, cancellation that removes at
 * once, manual clocks, sub-millisecond waits and saturating delays.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopTimerContract extends LoopSuite {

    @Test
    void timersFireInDeadlineOrderAndEqualDeadlinesInSchedulingOrder() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        List<String> seen = new ArrayList<>();
        loop.callLater(Duration.ofMillis(30), () -> seen.add("30"));
        loop.callLater(Duration.ofMillis(10), () -> seen.add("10a"));
        loop.callLater(Duration.ofMillis(20), () -> seen.add("20"));
        loop.callLater(Duration.ofMillis(10), () -> seen.add("10b"));
        loop.callLater(Duration.ofMillis(10), () -> seen.add("10c"));
        loop.callLater(Duration.ofMillis(31), loop::stop);
        loop.runForever();
        assertEquals(List.of("10a", "10b", "10c", "20", "30"), seen);
    }

    @Test
    void manyRandomTimersFireInOrderAndNeverEarly() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        Random rnd = new Random(42);
        int n = 20_000;
        long[] firedAt = new long[n];
        long[] due = new long[n];
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int id = i;
            due[i] = loop.time() + TimeUnit.MILLISECONDS.toNanos(rnd.nextInt(5_000));
            loop.callAt(due[i], () -> {
                firedAt[id] = loop.time();
                order.add(id);
            });
        }
        loop.callAt(loop.time() + TimeUnit.SECONDS.toNanos(6), loop::stop);
        loop.runForever();
        assertEquals(n, order.size());
        for (int k = 0; k < n; k++) {
            int id = order.get(k);
            assertTrue(firedAt[id] >= due[id], "timer " + id + " fired early");
            if (k > 0) {
                int prev = order.get(k - 1);
                assertTrue(due[prev] < due[id] || (due[prev] == due[id] && prev < id),
                        "timer " + id + " fired out of order after " + prev);
            }
        }
    }

    @Test
    void aTimerNeverFiresBeforeItsDeadline() {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        AtomicInteger fired = new AtomicInteger();
        loop.callLater(Duration.ofMillis(10), fired::incrementAndGet);
        clock.advanceNanos(TimeUnit.MILLISECONDS.toNanos(10) - 1);
        spin(loop);
        assertEquals(0, fired.get());
        clock.advanceNanos(1);
        spin(loop);
        assertEquals(1, fired.get());
    }

    @Test
    void zeroAndNegativeDelaysAreDeadlinesAlreadyPassedOrderedByDeadline() {
        ManualClock clock = ManualClock.create();
        clock.advance(Duration.ofSeconds(1));
        Loop loop = open(options().withClock(clock));
        List<String> seen = new ArrayList<>();
        loop.callLater(Duration.ZERO, () -> seen.add("0"));
        loop.callLater(Duration.ofMillis(-5), () -> seen.add("-5"));
        loop.callLater(Duration.ofMillis(-10), () -> seen.add("-10"));
        spin(loop);
        assertEquals(List.of("-10", "-5", "0"), seen);
    }

    @Test
    void aCancelledTimerNeverFiresAndIsRemovedAtOnce() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        AtomicInteger fired = new AtomicInteger();
        List<TimerHandle> handles = new ArrayList<>();
        loop.callSoon(() -> scheduleAndCancel(loop, fired, handles));
        spin(loop);
        loop.callLater(Duration.ofSeconds(200), loop::stop);
        loop.runForever();
        assertEquals(10_000, fired.get());
        assertFalse(handles.get(0).cancel(), "cancelling a timer that ran does nothing");
    }

    private static void scheduleAndCancel(Loop loop, AtomicInteger fired, List<TimerHandle> handles) {
        for (int i = 0; i < 100_000; i++) {
            handles.add(loop.callLater(Duration.ofSeconds(10 + i % 100), fired::incrementAndGet));
        }
        assertEquals(100_000, loop.diagnostics().pendingTimers());
        int kept = 0;
        for (int i = 0; i < handles.size(); i++) {
            if (i % 10 == 0) {
                kept++;
            } else {
                assertTrue(handles.get(i).cancel());
                assertTrue(handles.get(i).isCancelled());
                assertFalse(handles.get(i).cancel(), "a second cancel reports it did nothing");
            }
        }
        assertEquals(kept, loop.diagnostics().pendingTimers(), "cancelled timers must not stay queued");
    }

    @Test
    void aTimerCancelledByAnEarlierCallbackOfTheSameIterationDoesNotRun() {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        AtomicInteger fired = new AtomicInteger();
        TimerHandle[] second = new TimerHandle[1];
        loop.callLater(Duration.ofMillis(1), () -> second[0].cancel());
        second[0] = loop.callLater(Duration.ofMillis(1), fired::incrementAndGet);
        clock.advance(Duration.ofMillis(1));
        spin(loop);
        spin(loop);
        assertEquals(0, fired.get());
        assertTrue(second[0].isCancelled());
    }

    @Test
    void aManualClockAdvancedFromAnotherThreadWakesABlockedLoop() throws Exception {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        CountDownLatch fired = new CountDownLatch(1);
        loop.callLater(Duration.ofHours(1), () -> {
            fired.countDown();
            loop.stop();
        });
        Thread t = new Thread(loop::runForever);
        t.start();
        clock.advance(Duration.ofMinutes(59));
        assertFalse(fired.await(50, TimeUnit.MILLISECONDS));
        clock.advance(Duration.ofMinutes(1));
        assertTrue(fired.await(10, TimeUnit.SECONDS));
        t.join(10_000);
        assertFalse(t.isAlive());
    }

    @Test
    void aSubMillisecondTimerNeitherSpinsNorOversleeps() {
        Loop loop = open();
        long delay = TimeUnit.MICROSECONDS.toNanos(300);
        int rounds = 20;
        long[] late = new long[rounds];
        AtomicInteger round = new AtomicInteger();
        long before = loop.diagnostics().iterations();
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            long due = loop.time() + delay;
            loop.callAt(due, () -> {
                late[round.get()] = loop.time() - due;
                if (round.incrementAndGet() < rounds) {
                    next[0].run();
                } else {
                    loop.stop();
                }
            });
        };
        loop.callSoon(next[0]);
        loop.runForever();
        long iterations = loop.diagnostics().iterations() - before;
        for (long l : late) {
            assertTrue(l >= 0, "fired early by " + l + " ns");
        }
        // Spinning would take thousands of iterations per 300 us wait; a poll plus a park takes few.
        assertTrue(iterations < rounds * 8L, "the loop spun: " + iterations + " iterations for " + rounds + " timers");
        long[] sorted = late.clone();
        java.util.Arrays.sort(sorted);
        assertTrue(sorted[rounds / 2] < TimeUnit.MILLISECONDS.toNanos(1),
                "median lateness " + sorted[rounds / 2] + " ns: the wait was rounded up to the backend's resolution");
    }

    @Test
    void callLaterWithAHugeDelaySaturatesInsteadOfOverflowing() {
        Loop loop = open();
        TimerHandle h = loop.callLater(Duration.ofSeconds(Long.MAX_VALUE), () -> { });
        assertTrue(h.deadline() > loop.time());
        assertTrue(h.cancel());
    }
}
