package dev.loop.timerwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.heap.HeapTimerQueue;
import dev.loop.spi.TimerNode;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ten million pending timers fit, at the cost of the nodes alone (the wheel adds no per-timer
 * memory: buckets are lists threaded through the nodes), and the wheel is back to its empty size
 * once they are all cancelled or fired. Needs the module's {@code -Xmx2g}.
 */
class TimerWheelFootprintTest {
    private static final int TIMERS = 10_000_000;
    /**
     * Bytes a minimal node takes with compressed references: 12 header + 8 deadline + 8 sequence +
     * 4 slot + 4 prev + 4 next = 40. Anything the wheel kept per timer would show above this.
     */
    private static final long NODE_BYTES = 40;

    /** A node with no fields of its own: what the queue costs, not what a timer carries. */
    static final class Bare extends TimerNode {
        Bare(long deadline) {
            super(deadline);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void tenMillionPendingTimersCostOnlyTheirNodesAndTheWheelShrinksBack() {
        TimerWheel wheel = new TimerWheel();
        wheel.expire(0, Integer.MAX_VALUE, n -> { });
        Bare[] nodes = new Bare[TIMERS]; // the test's own handles, measured before the nodes exist
        SplittableRandom rnd = new SplittableRandom(1);
        long before = usedHeap();
        for (int i = 0; i < TIMERS; i++) {
            // Timeouts from a millisecond to ten minutes, as a busy server holds them.
            Bare n = new Bare(rnd.nextLong(TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MINUTES.toNanos(10)));
            n.sequence(i);
            nodes[i] = n;
            wheel.add(n);
        }
        long after = usedHeap();
        double perTimer = (after - before) / (double) TIMERS;
        System.out.printf("timer wheel: %,d pending timers, %.1f bytes each (node %d), %d occupied buckets%n",
                TIMERS, perTimer, NODE_BYTES, wheel.occupiedBuckets());
        assertEquals(TIMERS, wheel.size());
        assertTrue(perTimer < NODE_BYTES + 4, "bytes per pending timer: " + perTimer);

        // Most timeouts are cancelled; the rest fire.
        for (int i = 0; i < TIMERS; i++) {
            if (i % 10 != 0) {
                assertTrue(wheel.remove(nodes[i]));
            }
        }
        assertEquals(TIMERS / 10, wheel.size());
        long[] fired = new long[1];
        long last = Long.MIN_VALUE;
        for (long now = 0; wheel.size() > 0; now += TimeUnit.SECONDS.toNanos(1)) {
            wheel.expire(now, Integer.MAX_VALUE, n -> fired[0]++);
            last = now;
        }
        assertEquals(TIMERS / 10, fired[0]);
        assertTrue(last <= TimeUnit.MINUTES.toNanos(10) + TimeUnit.SECONDS.toNanos(1));
        assertEquals(0, wheel.occupiedBuckets());
        assertTrue(wheel.dueCapacity() <= HeapTimerQueue.RETAINED_CAPACITY, "due heap array: " + wheel.dueCapacity());
    }

    private static long usedHeap() {
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return mem.getHeapMemoryUsage().getUsed();
    }
}
