package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link TimerQueue} SPI's contract, run on every timer strategy found on the class path: a
 * timer never expires before its deadline; timers expire in deadline order, equal deadlines in
 * sequence order; removal is immediate; {@code expire} honours its limit; {@code nextDeadline} is
 * never later than the earliest deadline. The queue is driven here as the engine drives it (the
 * engine assigns sequence numbers), without a loop, across deadlines from nanoseconds to days.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.loop.testkit.Matrix#timerQueues")
public class TimerQueueContract {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Comparator<Node> ORDER = Comparator.comparingLong(Node::deadline).thenComparingLong(Node::sequence);

    @Parameter
    String strategy;

    private TimerQueue queue;
    private long sequence;

    /** A timer as the queue sees it, numbered for messages. */
    static final class Node extends TimerNode {
        final int id;

        Node(int id, long deadline) {
            super(deadline);
            this.id = id;
        }

        @Override
        public String toString() {
            return "#" + id + "@" + deadline() + "/" + sequence();
        }
    }

    @BeforeEach
    void newQueue() {
        queue = Matrix.newTimerQueue(strategy);
    }

    private Node add(int id, long deadline) {
        Node n = new Node(id, deadline);
        n.sequence(sequence++);
        queue.add(n);
        return n;
    }

    private List<Node> expire(long now, int limit) {
        List<Node> out = new ArrayList<>();
        int n = queue.expire(now, limit, node -> out.add((Node) node));
        assertEquals(out.size(), n, "expire's count and what it handed out");
        return out;
    }

    @Test
    void anEmptyQueueHasNoDeadlineAndExpiresNothing() {
        assertEquals(0, queue.size());
        assertEquals(TimerQueue.NO_DEADLINE, queue.nextDeadline());
        assertTrue(expire(Long.MAX_VALUE - 1, 100).isEmpty());
    }

    @Test
    void timersExpireInDeadlineOrderAndNeverEarly() {
        add(1, 30 * MS);
        add(2, 10 * MS);
        add(3, 20 * MS);
        assertEquals(3, queue.size());
        assertTrue(queue.nextDeadline() <= 10 * MS, "next deadline " + queue.nextDeadline());
        assertTrue(expire(10 * MS - 1, 100).isEmpty(), "nothing is due a nanosecond early");
        assertEquals(List.of(2), ids(expire(10 * MS, 100)));
        assertEquals(List.of(3, 1), ids(expire(30 * MS, 100)));
        assertEquals(0, queue.size());
        assertEquals(TimerQueue.NO_DEADLINE, queue.nextDeadline());
    }

    @Test
    void equalDeadlinesExpireInSchedulingOrder() {
        for (int i = 0; i < 50; i++) {
            add(i, 5 * MS);
        }
        List<Integer> order = ids(expire(5 * MS, 1000));
        for (int i = 0; i < 50; i++) {
            assertEquals(i, order.get(i));
        }
    }

    @Test
    void aRemovedTimerLeavesAtOnceAndNeverExpires() {
        Node a = add(1, 10 * MS);
        Node b = add(2, 10 * MS);
        assertTrue(queue.remove(a));
        assertEquals(1, queue.size());
        assertFalse(queue.remove(a), "a second removal finds nothing");
        assertEquals(List.of(2), ids(expire(20 * MS, 100)));
        assertFalse(queue.remove(b), "an expired timer is in no queue");
    }

    @Test
    void expireHandsOutAtMostItsLimitAndTheRestLaterInOrder() {
        for (int i = 0; i < 10; i++) {
            add(i, (i + 1) * MS);
        }
        assertEquals(List.of(0, 1, 2), ids(expire(100 * MS, 3)));
        assertEquals(7, queue.size());
        assertTrue(queue.nextDeadline() <= 4 * MS, "what is left is due already: " + queue.nextDeadline());
        assertEquals(List.of(3, 4, 5, 6, 7, 8, 9), ids(expire(100 * MS, 100)));
    }

    @Test
    void clearHandsOverEveryTimerAndEmptiesTheQueue() {
        List<Integer> added = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            add(i, (i % 7) * 1000 * MS + i);
            added.add(i);
        }
        List<Integer> cleared = new ArrayList<>();
        queue.clear(n -> cleared.add(((Node) n).id));
        cleared.sort(null);
        assertEquals(added, cleared);
        assertEquals(0, queue.size());
        assertEquals(TimerQueue.NO_DEADLINE, queue.nextDeadline());
    }

    @Test
    void aTimerCanBeAddedAgainAfterItExpiredOrWasRemoved() {
        Node a = add(1, MS);
        assertEquals(List.of(1), ids(expire(MS, 10)));
        a.sequence(sequence++);
        queue.add(a);
        assertTrue(queue.remove(a));
        a.sequence(sequence++);
        queue.add(a);
        assertEquals(List.of(1), ids(expire(MS, 10)));
    }

    /**
     * A model check: random adds, removes and expiries over deadlines from nanoseconds to days
     * (every level of a hierarchical wheel), compared step by step with a sorted set.
     */
    @Test
    void behavesLikeASortedSetUnderRandomUse() {
        Random r = new Random(20261123L);
        TreeSet<Node> model = new TreeSet<>(ORDER);
        List<Node> live = new ArrayList<>();
        long now = 0;
        int id = 0;
        for (int step = 0; step < 20_000; step++) {
            int op = r.nextInt(10);
            if (op < 5) {
                long span = switch (r.nextInt(4)) {
                    case 0 -> r.nextInt(1000);                         // within a microsecond
                    case 1 -> (long) r.nextInt(50) * MS;               // milliseconds
                    case 2 -> (long) r.nextInt(600_000) * MS;          // minutes
                    default -> (long) r.nextInt(3 * 86_400) * 1000 * MS; // days
                };
                Node n = add(id++, now + span);
                model.add(n);
                live.add(n);
            } else if (op < 7 && !live.isEmpty()) {
                Node n = live.remove(r.nextInt(live.size()));
                assertEquals(model.remove(n), queue.remove(n), "remove " + n);
            } else {
                now += switch (r.nextInt(3)) {
                    case 0 -> r.nextInt(1000);
                    case 1 -> (long) r.nextInt(20) * MS;
                    default -> (long) r.nextInt(3_600_000) * MS;
                };
                int limit = 1 + r.nextInt(64);
                List<Node> got = expire(now, limit);
                List<Node> want = new ArrayList<>();
                for (Node n : model) {
                    if (n.deadline() > now || want.size() == limit) {
                        break;
                    }
                    want.add(n);
                }
                assertEquals(want, got, "expire(" + now + ", " + limit + ") at step " + step);
                got.forEach(model::remove);
                live.removeAll(got);
            }
            assertEquals(model.size(), queue.size(), "size at step " + step);
            if (!model.isEmpty()) {
                assertTrue(queue.nextDeadline() <= model.first().deadline(), "next deadline " + queue.nextDeadline()
                        + " is later than the earliest timer " + model.first() + " at step " + step);
            } else {
                assertEquals(TimerQueue.NO_DEADLINE, queue.nextDeadline());
            }
        }
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(n -> n.id).toList();
    }
}
