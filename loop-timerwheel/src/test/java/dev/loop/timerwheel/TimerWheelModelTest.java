package dev.loop.timerwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.heap.HeapTimerQueue;
import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The wheel against the heap as a model: the same random schedule / cancel / advance sequence on a
 * fake clock must hand out the same timers in the same order, never early, and the wheel's
 * {@code nextDeadline()} must never be later than the heap's (which is exact) yet always let a
 * clock that jumps to it make progress.
 */
class TimerWheelModelTest {
    /** Operations per run: enough to cross several revolutions of every level the delays reach. */
    private static final int STEPS = 100_000;

    /** A timer as the test sees it: a twin pair, one node per queue, with one id. */
    static final class Node extends TimerNode {
        final int id;

        Node(long deadline, int id) {
            super(deadline);
            this.id = id;
        }

        @Override
        public String toString() {
            return "#" + id + "@" + deadline();
        }
    }

    @ParameterizedTest(name = "seed {0}, tick {1} ns, size {2}, start {3}")
    @CsvSource({
        "1, 1000000, 256, 0",
        "2, 1000000, 64, -5000000000",
        "3, 1000, 4, 123456789",
        "4, 1, 2, -1",
        "5, 1000000, 65536, 9223372036000000000",
        "6, 7, 8, -9223372036000000000",
    })
    void sameFiringsAsTheHeap(long seed, long tickNanos, int size, long start) {
        Random rnd = new Random(seed);
        TimerWheel wheel = new TimerWheel(tickNanos, size);
        HeapTimerQueue heap = new HeapTimerQueue();
        List<Node> wheelNodes = new ArrayList<>();
        List<Node> heapNodes = new ArrayList<>();
        LiveSet live = new LiveSet(STEPS);
        List<Node> firedWheel = new ArrayList<>();
        List<Node> firedHeap = new ArrayList<>();
        long now = start;
        long seq = 0;
        boolean expiredOnce = false;
        for (int step = 0; step < STEPS; step++) {
            int op = rnd.nextInt(100);
            if (op < 50) {
                long deadline = saturatedAdd(now, randomDelay(rnd, tickNanos));
                int id = wheelNodes.size();
                Node w = new Node(deadline, id);
                Node h = new Node(deadline, id);
                w.sequence(seq);
                h.sequence(seq);
                seq++;
                wheelNodes.add(w);
                heapNodes.add(h);
                live.add(id);
                wheel.add(w);
                heap.add(h);
            } else if (op < 75 && !live.isEmpty()) {
                int id = live.removeRandom(rnd);
                assertEquals(heap.remove(heapNodes.get(id)), wheel.remove(wheelNodes.get(id)), "remove #" + id);
            } else if (op < 80 && !wheelNodes.isEmpty()) {
                // removing something already fired or removed is a harmless no
                int id = rnd.nextInt(wheelNodes.size());
                if (!live.contains(id)) {
                    assertEquals(false, wheel.remove(wheelNodes.get(id)));
                }
            } else {
                long before = now;
                int how = rnd.nextInt(4);
                if (how == 0 && wheel.size() > 0 && expiredOnce) {
                    // A loop on an auto-advancing clock sleeps until nextDeadline() exactly.
                    now = Math.max(now, wheel.nextDeadline());
                } else if (how == 1) {
                    now = saturatedAdd(now, rnd.nextInt(3) * tickNanos + rnd.nextInt(2)); // next tick or so
                } else {
                    now = saturatedAdd(now, Math.max(0, randomDelay(rnd, tickNanos) / 4));
                }
                int limit = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(20) : Integer.MAX_VALUE;
                int fromHeap = heap.expire(now, limit, n -> firedHeap.add((Node) n));
                int fromWheel = wheel.expire(now, limit, n -> firedWheel.add((Node) n));
                expiredOnce = true;
                assertEquals(fromHeap, fromWheel, "expired at " + now + " (from " + before + ")");
                for (int k = firedWheel.size() - fromWheel; k < firedWheel.size(); k++) {
                    Node n = firedWheel.get(k);
                    assertEquals(firedHeap.get(k).id, n.id, "fired #" + k + " at " + now);
                    assertTrue(n.deadline() <= now, "fired early: " + n + " at " + now);
                    assertEquals(-1, n.slot(), "a fired node is in no queue");
                    live.remove(n.id);
                }
                if (fromWheel < limit && wheel.size() > 0) {
                    assertTrue(wheel.nextDeadline() > now,
                            "nothing more is due, so a clock jumping to nextDeadline() must move: " + wheel.nextDeadline());
                }
            }
            assertEquals(heap.size(), wheel.size(), "size after step " + step);
            long exact = heap.nextDeadline();
            long told = wheel.nextDeadline();
            assertTrue(told <= exact, "nextDeadline " + told + " is later than the earliest deadline " + exact);
            if (exact == TimerQueue.NO_DEADLINE) {
                assertEquals(TimerQueue.NO_DEADLINE, told);
            }
        }
        List<Integer> clearedWheel = new ArrayList<>();
        List<Integer> clearedHeap = new ArrayList<>();
        wheel.clear(n -> clearedWheel.add(((Node) n).id));
        heap.clear(n -> clearedHeap.add(((Node) n).id));
        clearedWheel.sort(null);
        clearedHeap.sort(null);
        assertEquals(clearedHeap, clearedWheel);
        assertEquals(0, wheel.size());
        assertEquals(0, wheel.occupiedBuckets());
        assertTrue(firedWheel.size() > STEPS / 20, "the run should fire plenty: " + firedWheel.size());
    }

    /** Ids of pending timers: O(1) add, remove, membership and random pick. */
    private static final class LiveSet {
        private final int[] ids;
        private final int[] pos;
        private int size;

        LiveSet(int capacity) {
            ids = new int[capacity];
            pos = new int[capacity];
            java.util.Arrays.fill(pos, -1);
        }

        boolean isEmpty() {
            return size == 0;
        }

        void add(int id) {
            ids[size] = id;
            pos[id] = size++;
        }

        boolean contains(int id) {
            return pos[id] >= 0;
        }

        void remove(int id) {
            int i = pos[id];
            int last = ids[--size];
            ids[i] = last;
            pos[last] = i;
            pos[id] = -1;
        }

        int removeRandom(Random rnd) {
            int id = ids[rnd.nextInt(size)];
            remove(id);
            return id;
        }
    }

    /**
     * Mostly delays a server uses (sub-tick to minutes), some past, some days, some near infinite,
     * and many of a few ticks, so the current tick keeps landing on bucket and block boundaries.
     */
    private static long randomDelay(Random rnd, long tickNanos) {
        int kind = rnd.nextInt(100);
        if (kind < 5) {
            return -rnd.nextInt(1_000) * tickNanos - rnd.nextInt(1000); // already past
        } else if (kind < 10) {
            return 0;
        } else if (kind < 30) {
            return rnd.nextInt(4) * tickNanos + rnd.nextLong(Math.max(1, tickNanos)); // a few ticks
        } else if (kind < 50) {
            return rnd.nextInt(512) * tickNanos + rnd.nextLong(Math.max(1, tickNanos)); // level 0 or 1
        } else if (kind < 75) {
            return rnd.nextLong(TimeUnit.SECONDS.toNanos(120));
        } else if (kind < 90) {
            return rnd.nextLong(TimeUnit.DAYS.toNanos(30));
        } else if (kind < 97) {
            return Long.MAX_VALUE / 2 + rnd.nextLong(Long.MAX_VALUE / 2);
        }
        return Long.MAX_VALUE;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return r;
    }
}
