package dev.loop.heap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeapTimerQueueTest {
    static final class Node extends TimerNode {
        Node(long deadline, long sequence) {
            super(deadline);
            sequence(sequence);
        }

        @Override
        public String toString() {
            return "Node[" + deadline() + "#" + sequence() + "]";
        }
    }

    private static final Comparator<TimerNode> ORDER =
            Comparator.comparingLong(TimerNode::deadline).thenComparingLong(TimerNode::sequence);

    private static List<TimerNode> pollAll(HeapTimerQueue q) {
        List<TimerNode> out = new ArrayList<>();
        for (TimerNode x; (x = q.poll()) != null; ) {
            assertEquals(-1, x.slot());
            out.add(x);
        }
        return out;
    }

    /** Nodes with deadlines in [0, spread), many equal, in shuffled scheduling order. */
    private static List<Node> randomNodes(int n, int spread, long seed) {
        Random rnd = new Random(seed);
        List<Node> nodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            nodes.add(new Node(rnd.nextInt(spread), i));
        }
        Collections.shuffle(nodes, rnd);
        return nodes;
    }

    private static TimerNode chainOf(List<? extends TimerNode> nodes) {
        TimerNode head = null;
        for (TimerNode x : nodes) { // pushed at the head, as a wheel bucket does
            x.next(head);
            if (head != null) {
                head.prev(x);
            }
            head = x;
        }
        return head;
    }

    @Test
    void emptyHeapHasNothingToGive() {
        HeapTimerQueue q = new HeapTimerQueue();
        assertEquals(0, q.size());
        assertNull(q.peek());
        assertNull(q.poll());
        assertEquals(TimerQueue.NO_DEADLINE, q.nextDeadline());
        assertEquals(0, q.expire(Long.MAX_VALUE, Integer.MAX_VALUE, x -> { throw new AssertionError(); }));
        assertEquals(HeapTimerQueue.DEFAULT_INITIAL_CAPACITY, q.capacity());
        assertThrows(IllegalArgumentException.class, () -> new HeapTimerQueue(0));
    }

    @Test
    void expiresInDeadlineThenSequenceOrder() {
        HeapTimerQueue q = new HeapTimerQueue();
        List<Node> nodes = randomNodes(5_000, 100, 1);
        for (Node x : nodes) {
            q.add(x);
            assertTrue(x.slot() >= 0);
        }
        assertEquals(nodes.size(), q.size());
        List<TimerNode> expected = new ArrayList<>(nodes);
        expected.sort(ORDER);
        assertSame(expected.get(0), q.peek());
        assertEquals(expected.get(0).deadline(), q.nextDeadline());

        List<TimerNode> fired = new ArrayList<>();
        // Nothing before its deadline; the limit is honoured.
        assertEquals(0, q.expire(expected.get(0).deadline() - 1, Integer.MAX_VALUE, fired::add));
        assertEquals(7, q.expire(Long.MAX_VALUE, 7, fired::add));
        int due = 0;
        while (due < expected.size() && expected.get(due).deadline() <= 50) {
            due++;
        }
        q.expire(50, Integer.MAX_VALUE, fired::add);
        assertEquals(due, fired.size());
        assertTrue(q.peek() == null || q.peek().deadline() > 50);
        q.expire(Long.MAX_VALUE, Integer.MAX_VALUE, fired::add);
        assertEquals(expected, fired);
        for (TimerNode x : fired) {
            assertEquals(-1, x.slot());
        }
    }

    @Test
    void equalDeadlinesComeOutInSequenceOrder() {
        HeapTimerQueue q = new HeapTimerQueue();
        for (int i = 99; i >= 0; i--) {
            q.add(new Node(42, i));
        }
        List<TimerNode> out = pollAll(q);
        for (int i = 0; i < 100; i++) {
            assertEquals(i, out.get(i).sequence());
        }
    }

    @Test
    void removesHeadMiddleAndLastAndIgnoresAbsentNodes() {
        HeapTimerQueue q = new HeapTimerQueue();
        List<Node> nodes = randomNodes(200, 50, 2);
        nodes.forEach(q::add);
        List<TimerNode> expected = new ArrayList<>(nodes);
        expected.sort(ORDER);

        TimerNode head = q.peek();
        assertTrue(q.remove(head));
        assertEquals(-1, head.slot());
        assertFalse(q.remove(head), "already removed");
        expected.remove(head);

        TimerNode middle = expected.get(expected.size() / 2);
        assertTrue(q.remove(middle));
        expected.remove(middle);

        TimerNode last = nodes.stream().filter(x -> x.slot() == q.size() - 1).findFirst().orElseThrow();
        assertTrue(q.remove(last));
        expected.remove(last);

        assertFalse(q.remove(new Node(0, 1_000)), "never added");
        Node elsewhere = new Node(0, 1_001);
        elsewhere.slot(3); // claims an index of this heap but is not there
        assertFalse(q.remove(elsewhere));
        elsewhere.slot(-5); // a negative code some other queue might use
        assertFalse(q.remove(elsewhere));
        elsewhere.slot(1_000_000);
        assertFalse(q.remove(elsewhere));

        assertEquals(expected.size(), q.size());
        assertEquals(expected, pollAll(q));
    }

    @Test
    void randomAddsAndRemovesKeepOrder() {
        HeapTimerQueue q = new HeapTimerQueue(1);
        Random rnd = new Random(3);
        List<Node> live = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            if (live.isEmpty() || rnd.nextInt(3) != 0) {
                Node x = new Node(rnd.nextInt(1_000), i);
                q.add(x);
                live.add(x);
            } else {
                Node x = live.remove(rnd.nextInt(live.size()));
                assertTrue(q.remove(x));
            }
        }
        live.sort(ORDER);
        assertEquals(live, pollAll(q));
    }

    @Test
    void rejectsANodeAlreadyInAQueue() {
        HeapTimerQueue q = new HeapTimerQueue();
        Node x = new Node(1, 1);
        q.add(x);
        assertThrows(IllegalStateException.class, () -> q.add(x));
        Node inAWheelBucket = new Node(1, 2);
        inAWheelBucket.slot(-2 - 17);
        assertThrows(IllegalStateException.class, () -> q.add(inAWheelBucket));
        assertEquals(1, q.size());
    }

    @Test
    void loadsAChainAndHandsItOutInOrder() {
        HeapTimerQueue q = new HeapTimerQueue(16);
        List<Node> nodes = randomNodes(3_000, 40, 4);
        for (Node x : nodes) {
            x.slot(-2 - 5); // a bucket code: load ignores it
        }
        assertEquals(nodes.size(), q.load(chainOf(nodes)));
        assertEquals(nodes.size(), q.size());
        Set<Integer> slots = new HashSet<>();
        for (Node x : nodes) {
            assertTrue(x.slot() >= 0 && x.slot() < nodes.size());
            assertTrue(slots.add(x.slot()));
            assertNull(x.prev());
            assertNull(x.next());
        }
        // Loaded nodes are ordinary members: removable by index.
        Node gone = nodes.get(nodes.size() / 3);
        assertTrue(q.remove(gone));
        List<TimerNode> expected = new ArrayList<>(nodes);
        expected.remove(gone);
        expected.sort(ORDER);
        assertEquals(expected, pollAll(q));
        assertEquals(0, q.load(null));
        assertEquals(0, q.size());
    }

    @Test
    void loadsTimersScheduledInOrderWithoutReordering() {
        HeapTimerQueue q = new HeapTimerQueue();
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            nodes.add(new Node(7, i));
        }
        q.load(chainOf(nodes));
        for (int i = 0; i < 100; i++) {
            assertEquals(i, nodes.get(i).slot(), "the reversed chain is already a heap");
        }
        assertEquals(nodes, pollAll(q));
    }

    @Test
    void loadsIntoANonEmptyHeap() {
        HeapTimerQueue q = new HeapTimerQueue();
        List<Node> first = randomNodes(500, 30, 5);
        first.forEach(q::add);
        List<Node> second = randomNodes(500, 30, 6);
        for (Node x : second) {
            x.sequence(x.sequence() + 500);
        }
        assertEquals(500, q.load(chainOf(second)));
        List<TimerNode> expected = new ArrayList<>(first);
        expected.addAll(second);
        expected.sort(ORDER);
        assertEquals(expected, pollAll(q));
    }

    @Test
    void drainsToAChainAndForgetsEverything() {
        HeapTimerQueue q = new HeapTimerQueue(8);
        List<Node> nodes = randomNodes(5_000, 1_000, 7);
        nodes.forEach(q::add);
        Node tail = new Node(0, -1);
        TimerNode chain = q.drainTo(tail);
        assertEquals(0, q.size());
        assertNull(q.peek());
        assertEquals(8, q.capacity());
        Set<TimerNode> seen = new HashSet<>();
        TimerNode x = chain;
        for (; x != tail; x = x.next()) {
            assertEquals(-1, x.slot());
            assertNull(x.prev());
            assertTrue(seen.add(x));
        }
        assertEquals(new HashSet<>(nodes), seen);
        assertSame(tail, q.drainTo(tail), "an empty heap adds nothing");
        for (Node n : nodes) {
            n.next(null);
        }
        nodes.forEach(q::add); // the nodes can go back in
        assertEquals(nodes.size(), q.size());
    }

    @Test
    void clearHandsOutEveryNodeAndResets() {
        HeapTimerQueue q = new HeapTimerQueue();
        List<Node> nodes = randomNodes(3_000, 100, 8);
        nodes.forEach(q::add);
        List<TimerNode> cleared = new ArrayList<>();
        q.clear(n -> {
            assertEquals(-1, n.slot());
            assertEquals(0, q.size());
            cleared.add(n);
        });
        assertEquals(new HashSet<>(nodes), new HashSet<>(cleared));
        assertEquals(HeapTimerQueue.DEFAULT_INITIAL_CAPACITY, q.capacity());
    }

    @Test
    void smallHeapNeverGrowsNorShrinks() {
        HeapTimerQueue q = new HeapTimerQueue();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < HeapTimerQueue.DEFAULT_INITIAL_CAPACITY; i++) {
                q.add(new Node(i, i));
            }
            q.expire(Long.MAX_VALUE, Integer.MAX_VALUE, n -> { });
            assertEquals(HeapTimerQueue.DEFAULT_INITIAL_CAPACITY, q.capacity());
        }
    }

    @Test
    void capacityUpToTheFloorIsKeptAcrossBursts() {
        HeapTimerQueue q = new HeapTimerQueue();
        int burst = HeapTimerQueue.RETAINED_CAPACITY; // fills the floor exactly
        for (int i = 0; i < burst; i++) {
            q.add(new Node(i, i));
        }
        assertEquals(HeapTimerQueue.RETAINED_CAPACITY, q.capacity());
        while (q.poll() != null) {
            assertEquals(HeapTimerQueue.RETAINED_CAPACITY, q.capacity(), "never below the floor");
        }
        // The next burst of the same size reuses the array.
        for (int i = 0; i < burst; i++) {
            q.add(new Node(i, i));
            assertEquals(HeapTimerQueue.RETAINED_CAPACITY, q.capacity());
        }
    }

    @Test
    void aBigBurstFallsBackToTheFloorWhetherExpiredPolledOrRemoved() {
        int burst = 100_000;
        HeapTimerQueue expired = new HeapTimerQueue();
        HeapTimerQueue polled = new HeapTimerQueue();
        HeapTimerQueue removed = new HeapTimerQueue();
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < burst; i++) {
            expired.add(new Node(i, i));
            polled.add(new Node(i, i));
            Node x = new Node(i, i);
            nodes.add(x);
            removed.add(x);
        }
        assertTrue(expired.capacity() >= burst);

        // One expire call that takes everything gives the whole array back at once.
        assertEquals(burst, expired.expire(Long.MAX_VALUE, Integer.MAX_VALUE, n -> { }));
        assertEquals(HeapTimerQueue.RETAINED_CAPACITY, expired.capacity());

        // Draining a few at a time shrinks as it goes, keeping room for what is left.
        int left = burst;
        while (polled.poll() != null) {
            left--;
            assertTrue(polled.capacity() >= left);
            assertTrue(polled.capacity() >= HeapTimerQueue.RETAINED_CAPACITY);
            assertTrue(polled.capacity() <= Math.max(HeapTimerQueue.RETAINED_CAPACITY, 4 * left),
                    "at least a quarter used above the floor: " + polled.capacity() + " for " + left);
        }
        assertEquals(HeapTimerQueue.RETAINED_CAPACITY, polled.capacity());

        for (Node x : nodes) {
            assertTrue(removed.remove(x));
        }
        assertEquals(HeapTimerQueue.RETAINED_CAPACITY, removed.capacity());
    }
}
