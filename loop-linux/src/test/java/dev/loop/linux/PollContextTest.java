package dev.loop.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What Netty reads, live, inside a poll the loop drives: the timeout, and wake-ups that came first. */
class PollContextTest {

    @Test
    void aZeroTimeoutNeverBlocksAndANegativeOneWaitsForever() {
        PollContext c = new PollContext();
        c.arm(0);
        assertFalse(c.canBlock());
        c.arm(-1);
        assertTrue(c.canBlock());
        assertEquals(Long.MAX_VALUE, c.delayNanos(System.nanoTime()));
        assertEquals(-1, c.deadlineNanos());
    }

    @Test
    void aTimeoutIsOneDeadlineThatDoesNotMoveWhileItIsRead() {
        PollContext c = new PollContext();
        long before = System.nanoTime();
        c.arm(1_000_000);
        long deadline = c.deadlineNanos();
        assertTrue(deadline - before >= 1_000_000);
        assertEquals(deadline, c.deadlineNanos(), "the same instant each time: Netty re-arms its timer only on change");
        assertEquals(400_000, c.delayNanos(deadline - 400_000));
        assertEquals(0, c.delayNanos(deadline + 1), "a deadline passed is no wait, not a negative one");
    }

    @Test
    void aWakeupBeforeTheWaitTurnsItIntoANonBlockingPollUntilThePollEnds() {
        PollContext c = new PollContext();
        c.arm(-1);
        c.wakeupRequested();
        assertFalse(c.canBlock(), "a wake-up that lands before the wait is not lost");
        c.pollEnded();
        assertTrue(c.canBlock());
    }

    @Test
    void aPendingInterruptKeepsTheWaitFromStarting() {
        PollContext c = new PollContext();
        c.arm(-1);
        Thread.currentThread().interrupt();
        try {
            assertFalse(c.canBlock());
        } finally {
            Thread.interrupted();
        }
    }
}
