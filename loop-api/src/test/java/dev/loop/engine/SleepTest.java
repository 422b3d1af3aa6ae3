package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.heap.HeapTimerQueue;
import dev.loop.spi.IoDriver;
import dev.loop.spi.LoopClock;
import dev.loop.testing.ParkingDriver;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Phase 2's decision to sleep, on its own: a loop other threads just fed looks a while longer
 * before it publishes that it sleeps, and a submission it finds then costs its submitter no
 * wake-up; a loop nobody fed looks once, publishes, looks once more, and sleeps.
 */
class SleepTest {
    private final ParkingDriver io = new ParkingDriver();
    private final Sleep sleep = new Sleep(io, new HeapTimerQueue(), LoopClock.system());

    /** Nothing for {@code empty} looks; then a submitter offers and wakes, and the look finds it. */
    private BooleanSupplier arrivesAfter(int empty, AtomicInteger looks) {
        return () -> {
            if (looks.incrementAndGet() <= empty) {
                return false;
            }
            sleep.wake(); // the submitter: offered, now reads the word
            return true;
        };
    }

    @Test
    void aFedLoopThatFindsWorkWhileLingeringIsNeverWoken() {
        AtomicInteger looks = new AtomicInteger();
        assertEquals(0, sleep.timeout(arrivesAfter(3, looks), true));
        assertEquals(4, looks.get());
        assertEquals(0, io.wakeups.get(), "the word stayed awake: the submitter wrote no wake-up");
    }

    @Test
    void aLoopNobodyFedDoesNotLingerAndARacingSubmitterWakesIt() {
        AtomicInteger looks = new AtomicInteger();
        // the first look finds nothing, so "polling" is published before the last look; the
        // submitter racing with it sees that and wakes the loop (a wake-up the poll then consumes)
        assertEquals(0, sleep.timeout(arrivesAfter(1, looks), false));
        assertEquals(2, looks.get());
        assertEquals(1, io.wakeups.get());
    }

    @Test
    void aFedLoopThatFindsNothingSleepsAfterLingeringAndIsWokenOnce() throws Exception {
        AtomicInteger looks = new AtomicInteger();
        long start = System.nanoTime();
        long timeout = sleep.timeout(() -> {
            looks.incrementAndGet();
            return false;
        }, true);
        assertTrue(System.nanoTime() - start >= Sleep.LINGER_NANOS, "lingered before deciding");
        assertEquals(IoDriver.BLOCK_UNTIL_WOKEN, timeout, "no timer: sleeps until woken");
        assertTrue(looks.get() >= 3, "looked while lingering, then once more after publishing: " + looks.get());
        sleep.wake();
        sleep.wake();
        assertEquals(1, io.wakeups.get(), "published as polling: the first submitter wakes it, the next pays nothing");
    }
}
