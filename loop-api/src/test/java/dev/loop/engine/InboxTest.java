package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The inbox on its own, with the test thread as the loop's one consumer: what other threads offer
 * arrives in their order, every accepted offer asks for one wake-up, and closing loses nothing (a
 * submission is either taken, and runs, or refused, never both and never neither).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InboxTest {
    private static final int DRAIN_LIMIT = 256;
    /** Offers a producer makes before it waits for close to begin, in the races with close. */
    private static final int MAX_BEFORE_CLOSE = 2_000;

    @Test
    void eachProducersItemsArriveInTheOrderItOfferedThem() throws Exception {
        Inbox inbox = new Inbox("test");
        int producers = 4;
        int each = 50_000;
        List<Thread> threads = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int p = 0; p < producers; p++) {
            int id = p;
            threads.add(Thread.ofPlatform().start(() -> {
                awaitQuietly(go);
                for (int i = 0; i < each; i++) {
                    inbox.offer(new Item(id, i));
                }
            }));
        }
        go.countDown();
        int[] next = new int[producers];
        List<String> disorder = new ArrayList<>();
        int[] total = {0};
        // Drained while the producers still offer: the consumer races them as the loop does.
        while (total[0] < producers * each) {
            inbox.drain(o -> {
                Item item = (Item) o;
                if (item.seq != next[item.producer]) {
                    disorder.add(item + " where " + next[item.producer] + " was due");
                }
                next[item.producer] = item.seq + 1;
                total[0]++;
            }, DRAIN_LIMIT);
            Thread.onSpinWait();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of(), disorder);
        assertTrue(inbox.isEmpty(), "nothing more than was offered");
        for (int p = 0; p < producers; p++) {
            assertEquals(each, next[p], "producer " + p);
        }
    }

    @Test
    void anOfferThatHappensBeforeAnotherArrivesFirstWhicheverThreadsMadeThem() throws Exception {
        Inbox inbox = new Inbox("test");
        int threads = 50;
        for (int i = 0; i < threads; i++) {
            int n = i;
            Thread t = Thread.ofPlatform().start(() -> inbox.offer(n));
            t.join(); // this offer happens-before the next thread's
        }
        List<Object> got = new ArrayList<>();
        inbox.drain(got::add, Integer.MAX_VALUE);
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            expected.add(i);
        }
        assertEquals(expected, got);
    }

    @Test
    void everyOfferWhileOpenAsksForAWakeUpAndADrainTakesAtMostItsLimit() throws Exception {
        Inbox inbox = new Inbox("test");
        AtomicInteger wakeUps = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 1000; i++) {
                    if (inbox.offer(new Object())) {
                        wakeUps.incrementAndGet();
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        // The loop decides whether a wake-up costs anything (engine.Sleep); the inbox asks for
        // one per accepted offer, so none is lost to a loop about to sleep.
        assertEquals(3000, wakeUps.get());
        assertFalse(inbox.isEmpty());
        List<Object> got = new ArrayList<>();
        inbox.drain(got::add, 7);
        assertEquals(7, got.size(), "a drain moves no more than its limit");
        inbox.drain(got::add, Integer.MAX_VALUE);
        assertEquals(3000, got.size());
        assertTrue(inbox.isEmpty());
    }

    @Test
    void closeTakesWhatWaitsThenEveryOfferIsRefusedNamingTheLoop() {
        Inbox inbox = new Inbox("backend test");
        assertTrue(inbox.offer("before close 1"));
        assertTrue(inbox.offer("before close 2"));
        inbox.shut();
        assertTrue(inbox.isShut());
        List<Object> taken = new ArrayList<>();
        inbox.seal(taken::add);
        assertEquals(List.of("before close 1", "before close 2"), taken, "the seal takes what waits, in order");

        RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> inbox.offer("late"));
        assertTrue(e.getMessage().contains("backend test") && e.getMessage().contains("late"), e.getMessage());
        assertTrue(inbox.isEmpty(), "a refused item is not queued");
        inbox.drain(taken::add, Integer.MAX_VALUE);
        assertEquals(2, taken.size(), "a sealed inbox is no longer drained");
    }

    @Test
    void aSubmissionRacingWithCloseIsEitherTakenOrRefusedNeverBothNeverNeither() throws Exception {
        for (int round = 0; round < 100; round++) {
            raceWithClose(round, false);
        }
    }

    /**
     * The same object offered by several threads at once (a callback submitted twice): told apart
     * only by count, so as many offers are refused as copies were left, and the rest were taken.
     */
    @Test
    void theSameObjectOfferedByManyThreadsDuringCloseIsCountedNotLost() throws Exception {
        for (int round = 0; round < 100; round++) {
            raceWithClose(round, true);
        }
    }

    /**
     * Producers offer until refused while the consumer drains, shuts, drains again and seals, as
     * close does. Every offer's outcome is checked against what the consumer took.
     */
    private static void raceWithClose(int round, boolean sharedItem) throws Exception {
        Inbox inbox = new Inbox("test");
        Object shared = new Object();
        int producers = 3;
        List<List<Object>> wokeFor = new ArrayList<>();   // accepted while open: must be taken
        List<List<Object>> settled = new ArrayList<>();   // taken by a closing loop: no wake-up
        List<List<Object>> refused = new ArrayList<>();   // must not be taken
        CountDownLatch started = new CountDownLatch(producers);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            List<Object> w = new ArrayList<>();
            List<Object> s = new ArrayList<>();
            List<Object> r = new ArrayList<>();
            wokeFor.add(w);
            settled.add(s);
            refused.add(r);
            int id = p;
            threads.add(Thread.ofPlatform().start(() -> {
                started.countDown();
                for (int i = 0; ; i++) {
                    while (i >= MAX_BEFORE_CLOSE && !inbox.isShut()) {
                        Thread.yield(); // bounded: a producer far ahead of close would only fill the heap
                    }
                    Object item = sharedItem ? shared : new Item(id, i);
                    try {
                        (inbox.offer(item) ? w : s).add(item);
                    } catch (RejectedExecutionException e) {
                        r.add(item);
                        return;
                    }
                }
            }));
        }
        started.await();
        List<Object> taken = new ArrayList<>();
        inbox.drain(taken::add, DRAIN_LIMIT);
        inbox.shut();
        inbox.drain(taken::add, DRAIN_LIMIT); // close's drains go on after the flag
        inbox.seal(taken::add);
        for (Thread t : threads) {
            t.join();
        }

        int offered = 0;
        int accepted = 0;
        for (int p = 0; p < producers; p++) {
            assertEquals(1, refused.get(p).size(), "each producer stops at its first refusal");
            offered += wokeFor.get(p).size() + settled.get(p).size() + refused.get(p).size();
            accepted += wokeFor.get(p).size() + settled.get(p).size();
        }
        String where = "round " + round;
        assertEquals(accepted, taken.size(), where + ": everything accepted was taken, nothing else");
        assertEquals(offered, taken.size() + producers, where + ": every offer is taken or refused");
        if (!sharedItem) {
            Set<Object> takenSet = Collections.newSetFromMap(new IdentityHashMap<>());
            takenSet.addAll(taken);
            assertEquals(taken.size(), takenSet.size(), where + ": nothing taken twice");
            for (int p = 0; p < producers; p++) {
                assertTrue(takenSet.containsAll(wokeFor.get(p)), where + ": an offer that asked for a wake-up was lost");
                assertTrue(takenSet.containsAll(settled.get(p)), where + ": an offer settled as taken was lost");
                for (Object r : refused.get(p)) {
                    assertFalse(takenSet.contains(r), where + ": " + r + " was refused and taken");
                }
            }
        }
        assertTrue(inbox.isEmpty(), where + ": refused items do not stay queued");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private record Item(int producer, int seq) {
    }
}
