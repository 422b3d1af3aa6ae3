package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.Task;
import dev.loop.sync.AsyncCondition;
import dev.loop.sync.AsyncEvent;
import dev.loop.sync.AsyncLock;
import dev.loop.sync.AsyncQueue;
import dev.loop.sync.AsyncSemaphore;
import dev.loop.sync.QueueClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The queues and sync primitives of {@code dev.loop.sync}: bounded queues, closing, fairness, and
 * waiters woken and then cancelled, which must pass on what they were handed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskSyncContract extends TaskSuite {

    // ------------------------------------------------------------------ queues

    @Test
    void aBoundedQueueSuspendsPuttersWhenFullAndTakersWhenEmpty() {
        Loop loop = open();
        AsyncQueue<String> q = new AsyncQueue<>(1);
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            Task<?> producer = loop.spawn(() -> {
                q.put("a");
                log.add("put a");
                q.put("b");
                log.add("put b at " + millis(loop));
                return null;
            });
            Async.sleep(Duration.ofMillis(5));
            assertTrue(q.isFull());
            assertFalse(q.offer("x"));
            log.add("took " + q.take());
            log.add("took " + q.take());
            Async.await(producer);
            assertEquals(null, q.poll());
            return null;
        });
        assertEquals(List.of("put a", "took a", "put b at 5", "took b"), log);
    }

    @Test
    void closingAQueueLetsTakersDrainThenFailsThemAndPuttersFailAtOnce() {
        Loop loop = open();
        AsyncQueue<Integer> q = new AsyncQueue<>();
        runTask(loop, () -> {
            Task<?> waitingTaker = loop.spawn(q::take);
            Async.yieldNow();
            q.offer(1);
            q.offer(2);
            q.close();
            assertEquals(1, Async.await(waitingTaker));
            assertEquals(2, q.take());
            assertThrows(QueueClosedException.class, q::take);
            assertThrows(QueueClosedException.class, () -> q.put(3));
            assertTrue(q.takeAsync().isFailed());
            return null;
        });
    }

    @Test
    void waitersAreServedInOrderAndACancelledWokenTakerLosesNoItem() {
        Loop loop = open();
        AsyncQueue<String> q = new AsyncQueue<>();
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            Task<?> first = loop.spawn(() -> log.add("first got " + q.take()));
            Task<?> second = loop.spawn(() -> log.add("second got " + q.take()));
            Async.yieldNow();
            q.offer("x");      // handed to first...
            first.cancel();    // ...which is cancelled before it runs: x goes to second
            assertEquals(null, q.poll(), "a newcomer cannot take an item handed to a waiter");
            Async.await(second);
            assertThrows(CancellationException.class, () -> Async.await(first));
            return null;
        });
        assertEquals(List.of("second got x"), log);
    }

    @Test
    void aCancelledWokenPutterPassesItsSlotOn() {
        Loop loop = open();
        AsyncQueue<String> q = new AsyncQueue<>(1);
        runTask(loop, () -> {
            q.put("a");
            Task<?> p1 = loop.spawn(() -> {
                q.put("p1");
                return null;
            });
            Task<?> p2 = loop.spawn(() -> {
                q.put("p2");
                return null;
            });
            Async.yieldNow();
            assertEquals("a", q.poll()); // frees a slot: kept for p1
            assertFalse(q.offer("newcomer"), "the slot is kept for the woken putter");
            p1.cancel();
            Async.await(p2);
            assertEquals("p2", q.poll());
            assertEquals(0, q.size());
            return null;
        });
    }

    @Test
    void callbackCodeUsesTheFutureForms() {
        Loop loop = open();
        AsyncQueue<String> q = new AsyncQueue<>(1);
        List<String> log = new ArrayList<>();
        loop.callSoon(() -> {
            q.takeAsync().onDone(f -> log.add("took " + f.result()));
            q.putAsync("a").onDone(f -> log.add("put a"));
            q.putAsync("b").onDone(f -> log.add("put b"));
        });
        runTask(loop, () -> {
            Async.sleep(Duration.ofMillis(1));
            log.add("then " + q.take());
            return null;
        });
        assertEquals(List.of("took a", "put a", "put b", "then b"), log);
    }

    // ------------------------------------------------------------------ sync primitives

    @Test
    void theLockIsFairAndAWokenButCancelledWaiterPassesItOn() {
        Loop loop = open();
        AsyncLock lock = new AsyncLock();
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            lock.lock();
            Task<?> a = loop.spawn(() -> {
                lock.lock();
                log.add("a");
                lock.unlock();
                return null;
            });
            Task<?> b = loop.spawn(() -> lock.withLock(() -> log.add("b")));
            Async.yieldNow();
            lock.unlock();  // handed to a...
            a.cancel();     // ...which is cancelled before it runs
            assertFalse(lock.tryLock(), "a newcomer cannot barge past the woken waiter");
            Async.await(b);
            assertFalse(lock.isLocked());
            return null;
        });
        assertEquals(List.of("b"), log);
    }

    @Test
    void aLockSerializesTasksAcrossAwaits() {
        Loop loop = open();
        AsyncLock lock = new AsyncLock();
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            List<Task<?>> all = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int n = i;
                all.add(loop.spawn(() -> lock.withLock(() -> {
                    log.add("in " + n);
                    Async.sleep(Duration.ofMillis(1));
                    log.add("out " + n);
                    return null;
                })));
            }
            for (Task<?> t : all) {
                Async.await(t);
            }
            return null;
        });
        assertEquals(List.of("in 0", "out 0", "in 1", "out 1", "in 2", "out 2"), log);
    }

    @Test
    void anEventSetAndClearedAtOnceStillWakesItsWaiters() {
        Loop loop = open();
        AsyncEvent ev = new AsyncEvent();
        AtomicInteger woken = new AtomicInteger();
        runTask(loop, () -> {
            List<Task<?>> all = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                all.add(loop.spawn(() -> {
                    ev.await();
                    return woken.incrementAndGet();
                }));
            }
            Async.yieldNow();
            ev.set();
            ev.clear();
            for (Task<?> t : all) {
                Async.await(t);
            }
            return null;
        });
        assertEquals(3, woken.get());
    }

    @Test
    void aSemaphoreIsFairAndAWokenButCancelledWaiterPassesThePermitOn() {
        Loop loop = open();
        AsyncSemaphore sem = new AsyncSemaphore(1);
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            sem.acquire();
            Task<?> a = loop.spawn(() -> sem.withPermit(() -> log.add("a")));
            Task<?> b = loop.spawn(() -> sem.withPermit(() -> log.add("b")));
            Async.yieldNow();
            sem.release();
            a.cancel();
            assertFalse(sem.tryAcquire());
            Async.await(b);
            assertEquals(1, sem.available());
            return null;
        });
        assertEquals(List.of("b"), log);
    }

    @Test
    void aConditionWakesWaitersInOrderAndReacquiresTheLockEvenWhenCancelled() {
        Loop loop = open();
        AsyncCondition cond = new AsyncCondition();
        List<String> log = new ArrayList<>();
        int[] ready = {0};
        runTask(loop, () -> {
            List<Task<?>> all = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int n = i;
                all.add(loop.spawn(() -> cond.lock().withLock(() -> {
                    cond.awaitUntil(() -> ready[0] > n);
                    log.add("waiter " + n);
                    return null;
                })));
            }
            Task<?> cancelled = loop.spawn(() -> cond.lock().withLock(() -> {
                try {
                    cond.await();
                } finally {
                    log.add("cancelled waiter holds lock: " + cond.lock().isHeldByCurrentTask());
                }
                return null;
            }));
            Async.yieldNow();
            cancelled.cancel();
            assertThrows(CancellationException.class, () -> Async.await(cancelled));
            cond.lock().withLock(() -> {
                ready[0] = 2;
                cond.signalAll();
                return null;
            });
            for (Task<?> t : all) {
                Async.await(t);
            }
            return null;
        });
        assertEquals(List.of("cancelled waiter holds lock: true", "waiter 0", "waiter 1"), log);
    }
}
