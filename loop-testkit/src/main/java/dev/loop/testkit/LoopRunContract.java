package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.ManualClock;
import dev.loop.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Running the loop: it reports the backend and timers it was opened with, callbacks run in FIFO
 * order, an iteration runs only what was ready when it began, {@code runForever} and {@code stop},
 * {@code runUntilComplete}, and timers not starved by a callback that reschedules itself.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopRunContract extends LoopSuite {

    // ------------------------------------------------------------------ identity

    @Test
    void reportsTheBackendAndTimersItWasOpenedWith() {
        Loop loop = open();
        assertEquals(options().backend(), loop.backendName());
        assertEquals(options().timers(), loop.timersName());
    }

    // ------------------------------------------------------------------ ordering

    @Test
    void callbacksRunInFifoOrder() {
        Loop loop = open();
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            int n = i;
            loop.callSoon(() -> seen.add(n));
        }
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(1000, seen.size());
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, seen.get(i));
        }
    }

    @Test
    void anIterationRunsOnlyWhatWasReadyWhenItBegan() {
        Loop loop = open();
        List<String> seen = new ArrayList<>();
        loop.callSoon(() -> {
            seen.add("a");
            loop.callSoon(() -> seen.add("b (scheduled by a)"));
            loop.stop();
        });
        loop.callSoon(() -> seen.add("c"));
        loop.runForever();
        // stop() lets the current iteration finish: c ran, b waits for the next one.
        assertEquals(List.of("a", "c"), seen);
        spin(loop);
        assertEquals(List.of("a", "c", "b (scheduled by a)"), seen);
    }

    @Test
    void runForeverCanBeCalledAgainAfterStop() {
        Loop loop = open();
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            loop.callSoon(() -> {
                runs.incrementAndGet();
                loop.stop();
            });
            loop.runForever();
            assertFalse(loop.isRunning());
        }
        assertEquals(3, runs.get());
    }

    @Test
    void aCallbackRescheduledInASelfLoopDoesNotStarveTimers() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        AtomicInteger spins = new AtomicInteger();
        Runnable[] self = new Runnable[1];
        self[0] = () -> {
            if (spins.incrementAndGet() < 1_000_000) {
                loop.callSoon(self[0]);
            }
        };
        loop.callSoon(self[0]);
        loop.callLater(Duration.ZERO, loop::stop);
        loop.runForever();
        assertTrue(spins.get() < 10, "a due timer ran only after " + spins.get() + " rescheduled callbacks");
    }

    @Test
    void aRefusedRunUntilCompleteLeavesNoStaleStopBehind() {
        Loop outer = open();
        Loop refused = open();
        Promise<String> alreadyDone = refused.newPromise();
        alreadyDone.complete("done");
        Promise<String> pending = refused.newPromise();
        List<String> errors = new ArrayList<>();
        Promise<Void> tried = outer.newPromise();
        outer.callSoon(() -> {
            for (Promise<String> p : List.of(alreadyDone, pending)) {
                try {
                    refused.runUntilComplete(p); // another loop runs on this thread: refused
                    errors.add("not refused");
                } catch (IllegalStateException e) {
                    errors.add(e.getMessage());
                }
            }
            tried.complete(null);
        });
        outer.runUntilComplete(tried);
        assertEquals(2, errors.size());
        errors.forEach(m -> assertTrue(m.contains("another loop is already running"), m));
        // The refused loop runs to completion next time: no stop left over from the refused calls.
        Promise<String> later = refused.newPromise();
        int[] hops = {0};
        Runnable[] hop = new Runnable[1];
        hop[0] = () -> {
            if (++hops[0] < 5) {
                refused.callSoon(hop[0]); // a few iterations, so a stale stop would end the run early
            } else {
                later.complete("ran to completion");
            }
        };
        refused.callSoon(hop[0]);
        assertEquals("ran to completion", refused.runUntilComplete(later));
        pending.complete("late");
        assertEquals("late", refused.runUntilComplete(pending));
    }

    @Test
    void runUntilCompleteReturnsTheResultOrThrowsTheException() {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        loop.callLater(Duration.ofMillis(1), () -> p.complete("done"));
        assertEquals("done", loop.runUntilComplete(p));
        Promise<String> q = loop.newPromise();
        IllegalStateException boom = new IllegalStateException("boom");
        loop.callSoon(() -> q.fail(boom));
        assertSame(boom, assertThrows(IllegalStateException.class, () -> loop.runUntilComplete(q)));
        Promise<String> never = loop.newPromise();
        loop.callSoon(loop::stop);
        String m = assertThrows(IllegalStateException.class, () -> loop.runUntilComplete(never)).getMessage();
        assertTrue(m.contains("stopped before the future completed"), m);
    }
}
