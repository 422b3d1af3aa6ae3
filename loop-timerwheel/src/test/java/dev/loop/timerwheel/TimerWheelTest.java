package dev.loop.timerwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.heap.HeapTimerQueue;
import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Edge cases of {@link TimerWheel}: shapes, extreme deadlines, bursts in one tick, memory falling back. */
class TimerWheelTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    static final class Node extends TimerNode {
        Node(long deadline, long sequence) {
            super(deadline);
            sequence(sequence);
        }
    }

    @Test
    void rejectsShapesItCannotAddress() {
        assertThrows(IllegalArgumentException.class, () -> new TimerWheel(0, 256));
        assertThrows(IllegalArgumentException.class, () -> new TimerWheel(MS, 100));
        assertThrows(IllegalArgumentException.class, () -> new TimerWheel(MS, 1));
        assertThrows(IllegalArgumentException.class, () -> new TimerWheel(MS, TimerWheel.MAX_WHEEL_SIZE * 2));
        TimerWheel w = new TimerWheel();
        assertEquals(TimerWheel.DEFAULT_TICK_NANOS, w.tickNanos());
        assertEquals(TimerWheel.DEFAULT_WHEEL_SIZE, w.wheelSize());
        assertEquals(8, w.levels(), "8 bits per level cover a 64-bit tick in 8 levels");
        assertEquals(64, new TimerWheel(1, 2).levels());
    }

    @Test
    void addingANodeTwiceIsAnError() {
        TimerWheel w = new TimerWheel();
        Node n = new Node(5, 0);
        w.add(n);
        assertThrows(IllegalStateException.class, () -> w.add(n));
    }

    @Test
    void cancelRemovesAtOnceWhereverTheNodeIs() {
        TimerWheel w = new TimerWheel();
        Node early = new Node(-5, 0);
        w.add(early); // before the first expire: waits on the pending list
        assertTrue(w.remove(early));
        assertFalse(w.remove(early), "a second remove does nothing");
        w.expire(0, Integer.MAX_VALUE, n -> { });
        Node past = new Node(0, 1);        // tick already reached: due heap
        Node near = new Node(3 * MS, 2);   // level 0
        Node far = new Node(TimeUnit.DAYS.toNanos(3), 3); // a high level
        w.add(past);
        w.add(near);
        w.add(far);
        assertEquals(3, w.size());
        assertTrue(w.remove(near));
        assertTrue(w.remove(far));
        assertTrue(w.remove(past));
        assertFalse(w.remove(past));
        assertEquals(0, w.size());
        assertEquals(0, w.occupiedBuckets(), "no bucket keeps a cancelled timer");
        assertEquals(-1, far.slot());
        assertEquals(null, far.next());
        assertEquals(TimerQueue.NO_DEADLINE, w.nextDeadline());
        assertEquals(0, w.expire(TimeUnit.DAYS.toNanos(4), Integer.MAX_VALUE, n -> { }));
    }

    @Test
    void longDelaysAndExtremeDeadlinesNeitherOverflowNorFireEarly() {
        for (TimerWheel w : List.of(new TimerWheel(), new TimerWheel(1, 2), new TimerWheel(7, 65_536))) {
            long start = Long.MAX_VALUE - TimeUnit.DAYS.toNanos(3);
            w.expire(start, Integer.MAX_VALUE, n -> { });
            long[] deadlines = {Long.MAX_VALUE, Long.MAX_VALUE - 1, start + TimeUnit.DAYS.toNanos(2),
                start + 1, Long.MIN_VALUE, start - 1, start};
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < deadlines.length; i++) {
                nodes.add(new Node(deadlines[i], i));
                w.add(nodes.get(i));
            }
            assertTrue(w.nextDeadline() <= Long.MIN_VALUE, w.toString());
            List<TimerNode> fired = new ArrayList<>();
            assertEquals(3, w.expire(start, Integer.MAX_VALUE, fired::add));
            assertEquals(List.of(nodes.get(4), nodes.get(5), nodes.get(6)), fired);
            assertTrue(w.nextDeadline() <= start + 1 && w.nextDeadline() > start);
            assertEquals(1, w.expire(start + TimeUnit.DAYS.toNanos(1), Integer.MAX_VALUE, fired::add));
            assertEquals(0, w.expire(start + TimeUnit.DAYS.toNanos(2) - 1, Integer.MAX_VALUE, fired::add));
            assertEquals(1, w.expire(start + TimeUnit.DAYS.toNanos(2), Integer.MAX_VALUE, fired::add));
            assertEquals(0, w.expire(Long.MAX_VALUE - 2, Integer.MAX_VALUE, fired::add));
            assertEquals(1, w.expire(Long.MAX_VALUE - 1, Integer.MAX_VALUE, fired::add));
            assertSame(nodes.get(1), fired.get(fired.size() - 1));
            assertEquals(1, w.expire(Long.MAX_VALUE, Integer.MAX_VALUE, fired::add));
            assertSame(nodes.get(0), fired.get(fired.size() - 1));
            assertEquals(0, w.size());
        }
    }

    @Test
    void aTimerDaysAwayWaitsForExactlyItsDeadline() {
        TimerWheel w = new TimerWheel();
        w.expire(0, Integer.MAX_VALUE, n -> { });
        long due = TimeUnit.DAYS.toNanos(10) + 123_456;
        w.add(new Node(due, 0));
        assertEquals(due, w.nextDeadline(), "a lone timer is answered exactly, so the loop wakes once");
        List<TimerNode> fired = new ArrayList<>();
        for (long t = 0; t < due - 1; t += TimeUnit.HOURS.toNanos(7)) {
            assertEquals(0, w.expire(t, Integer.MAX_VALUE, fired::add));
            assertEquals(due, w.nextDeadline());
        }
        assertEquals(0, w.expire(due - 1, Integer.MAX_VALUE, fired::add));
        assertEquals(1, w.expire(due, Integer.MAX_VALUE, fired::add));
    }

    @Test
    void aBigBucketAnswersWithItsStartNeverLaterThanItsEarliestTimer() {
        TimerWheel w = new TimerWheel();
        w.expire(0, Integer.MAX_VALUE, n -> { });
        long base = TimeUnit.SECONDS.toNanos(100); // a level-1 or higher bucket
        // The earliest is added first, so it sits last in the bucket, past the exact-scan limit.
        for (int i = 0; i <= TimerWheel.EXACT_SCAN_LIMIT * 2; i++) {
            w.add(new Node(base + (i == 0 ? 0 : 10 * MS + i), i));
        }
        assertTrue(w.nextDeadline() <= base, "nextDeadline " + w.nextDeadline());
    }

    @Test
    void aHundredThousandTimersInOneTickFireInOrderHonouringTheLimit() {
        TimerWheel w = new TimerWheel();
        w.expire(0, Integer.MAX_VALUE, n -> { });
        int n = 100_000;
        Random rnd = new Random(7);
        long tickStart = 50 * MS;
        for (int i = 0; i < n; i++) {
            // deadlines all inside one tick, many equal, scheduled out of order
            w.add(new Node(tickStart + rnd.nextInt(1000) * 1000L, i));
        }
        assertEquals(n, w.size());
        int limit = 4096;
        List<TimerNode> fired = new ArrayList<>(n);
        long now = tickStart + MS - 1;
        int calls = 0;
        while (w.size() > 0) {
            int got = w.expire(now, limit, fired::add);
            assertTrue(got <= limit);
            assertTrue(got == limit || w.size() == 0, "stops early only when done");
            calls++;
        }
        assertEquals((n + limit - 1) / limit, calls);
        assertEquals(n, fired.size());
        for (int i = 1; i < n; i++) {
            assertTrue(fired.get(i - 1).before(fired.get(i)), "out of order at " + i);
        }
        assertTrue(w.dueCapacity() <= HeapTimerQueue.RETAINED_CAPACITY, "the burst's array was given back: " + w.dueCapacity());
    }

    @Test
    void timersOfATickAlreadyReachedJoinItInOrder() {
        TimerWheel w = new TimerWheel();
        w.expire(0, Integer.MAX_VALUE, n -> { });
        Node later = new Node(10 * MS + 900_000, 0);
        w.add(later);
        List<TimerNode> fired = new ArrayList<>();
        assertEquals(0, w.expire(10 * MS + 100, Integer.MAX_VALUE, fired::add)); // reaches the tick
        Node zeroDelay = new Node(10 * MS + 100, 1);
        Node sameTick = new Node(10 * MS + 500_000, 2);
        w.add(sameTick);
        w.add(zeroDelay);
        assertEquals(10 * MS + 100, w.nextDeadline());
        assertEquals(3, w.expire(11 * MS, Integer.MAX_VALUE, fired::add));
        assertEquals(List.of(zeroDelay, sameTick, later), fired);
    }

    @Test
    void clearHandsOutEveryNodeWhereverItIs() {
        TimerWheel w = new TimerWheel(MS, 4);
        Node pending = new Node(5, 0);
        w.add(pending);
        w.clear(n -> { });
        assertEquals(0, w.size());
        w.expire(0, Integer.MAX_VALUE, n -> { });
        List<Node> all = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Node n = new Node(i * i * MS / 4, i); // nodes 0 and 1 share tick 0
            all.add(n);
            w.add(n);
        }
        w.expire(2 * MS, 1, n -> all.remove((Node) n)); // leaves timers in the due heap too
        List<TimerNode> cleared = new ArrayList<>();
        w.clear(n -> {
            assertEquals(-1, n.slot(), "handed out detached");
            assertEquals(null, n.next());
            cleared.add(n);
        });
        assertEquals(all.size(), cleared.size());
        assertTrue(cleared.containsAll(all));
        assertEquals(0, w.size());
        assertEquals(0, w.occupiedBuckets());
        assertEquals(TimerQueue.NO_DEADLINE, w.nextDeadline());
    }
}
