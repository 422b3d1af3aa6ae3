package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadyQueueTest {
    private static List<Runnable> callbacks(int n) {
        List<Runnable> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int id = i;
            out.add(new Runnable() {
                @Override
                public void run() {
                }

                @Override
                public String toString() {
                    return "cb" + id;
                }
            });
        }
        return out;
    }

    private static void takeInOrder(ReadyQueue q, List<Runnable> expected, int from, int to) {
        for (int i = from; i < to; i++) {
            assertSame(expected.get(i), q.pollFirst(), "position " + i);
        }
    }

    @Test
    void keepsOrderAcrossTheRingsEndAndThroughGrowth() {
        ReadyQueue q = new ReadyQueue();
        List<Runnable> cbs = callbacks(5 * ReadyQueue.INITIAL);
        // Move head and tail near the end of the ring, so what follows wraps before it grows.
        for (int i = 0; i < ReadyQueue.INITIAL - 3; i++) {
            q.addLast(cbs.get(0));
            q.pollFirst();
        }
        for (Runnable r : cbs) {
            q.addLast(r);
        }
        assertEquals(cbs.size(), q.size());
        assertTrue(q.capacity() > cbs.size());
        takeInOrder(q, cbs, 0, cbs.size());
        assertTrue(q.isEmpty());
        assertNull(q.pollFirst());
    }

    @Test
    void aRenewalKeepsWhatIsQueuedInOrderWhateverWhereItWraps() {
        ReadyQueue q = new ReadyQueue();
        List<Runnable> cbs = callbacks(600);
        for (int i = 0; i < 700; i++) {
            q.addLast(cbs.get(0));
            q.pollFirst();
        }
        for (Runnable r : cbs) {
            q.addLast(r); // wraps: head at 700, tail at 276
        }
        q.renew();
        assertEquals(1, q.renewals());
        assertEquals(600, q.size());
        takeInOrder(q, cbs, 0, 300);
        q.renew();
        for (Runnable r : cbs.subList(0, 10)) {
            q.addLast(r);
        }
        takeInOrder(q, cbs, 300, 600);
        takeInOrder(q, cbs, 0, 10);
        assertTrue(q.isEmpty());
    }

    @Test
    void theRingABurstGrewIsGivenBackOnceTheBurstHasRun() {
        ReadyQueue q = new ReadyQueue();
        List<Runnable> cbs = callbacks(100_000);
        for (Runnable r : cbs) {
            q.addLast(r);
        }
        int grown = q.capacity();
        assertTrue(grown >= 100_000, "grown to " + grown);
        takeInOrder(q, cbs, 0, 99_990);
        for (int i = 0; i < ReadyQueue.RENEW_EVERY - 1; i++) {
            q.iterationEnded();
        }
        assertEquals(grown, q.capacity(), "renewed before its iteration came");
        q.iterationEnded();
        assertEquals(ReadyQueue.INITIAL, q.capacity(), "ten callbacks left in a ring of " + grown);
        takeInOrder(q, cbs, 99_990, 100_000);
    }

    @Test
    void aRingTooLargeToRenewAtItsSizeIsKeptWhileItIsFull() {
        ReadyQueue q = new ReadyQueue();
        List<Runnable> cbs = callbacks(ReadyQueue.RENEW_MAX);
        for (Runnable r : cbs) {
            q.addLast(r);
        }
        int size = q.capacity();
        assertTrue(size > ReadyQueue.RENEW_MAX);
        q.renew();
        assertEquals(0, q.renewals(), "a ring of " + size + " renewed at its own size");
        assertEquals(size, q.capacity());
        takeInOrder(q, cbs, 0, cbs.size());
    }

    @Test
    void clearDropsEverything() {
        ReadyQueue q = new ReadyQueue();
        for (Runnable r : callbacks(10)) {
            q.addLast(r);
        }
        q.clear();
        assertTrue(q.isEmpty());
        assertEquals(0, q.size());
        assertNull(q.pollFirst());
    }
}
