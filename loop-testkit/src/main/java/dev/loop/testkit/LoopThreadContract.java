package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.ManualClock;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Other threads: their callbacks and timers keep their order (FIFO across threads), their
 * submissions and stops wake a blocked loop, and an interrupt of the loop thread stops it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopThreadContract extends LoopSuite {

    @Test
    void callbacksFromOtherThreadsAllRunInPerThreadOrder() throws Exception {
        Loop loop = open();
        int threads = 2;
        int perThread = 100_000;
        List<List<Integer>> seen = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            seen.add(new ArrayList<>());
        }
        AtomicInteger remaining = new AtomicInteger(threads * perThread);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<Integer> mine = seen.get(t);
            Thread p = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    int n = i;
                    loop.callSoon(() -> {
                        mine.add(n);
                        if (remaining.decrementAndGet() == 0) {
                            loop.stop();
                        }
                    });
                }
            });
            p.start();
            producers.add(p);
        }
        go.countDown();
        loop.runForever();
        for (Thread p : producers) {
            p.join();
        }
        for (List<Integer> mine : seen) {
            assertEquals(perThread, mine.size());
            for (int i = 0; i < perThread; i++) {
                assertEquals(i, mine.get(i));
            }
        }
    }

    @Test
    void aCallSoonThatHappensBeforeAnotherRunsFirstWhicheverThreadsMadeThem() throws Exception {
        Loop loop = open();
        List<String> seen = new CopyOnWriteArrayList<>();
        Promise<Void> done = loop.newPromise();
        loop.callSoon(() -> {
            // another thread first, then (after the join) the loop thread: FIFO by happens-before
            onAnotherThread(() -> loop.callSoon(() -> seen.add("foreign 1")));
            loop.callSoon(() -> seen.add("loop 1"));
            // and the reverse
            loop.callSoon(() -> seen.add("loop 2"));
            onAnotherThread(() -> loop.callSoon(() -> seen.add("foreign 2")));
            loop.execute(() -> seen.add("loop 3"));
            onAnotherThread(() -> loop.execute(() -> seen.add("foreign 3")));
            onAnotherThread(() -> loop.execute(() -> seen.add("foreign 4")));
            loop.callSoon(() -> done.complete(null));
        });
        loop.runUntilComplete(done);
        assertEquals(List.of("foreign 1", "loop 1", "loop 2", "foreign 2", "loop 3", "foreign 3", "foreign 4"), seen);
    }

    @Test
    void whatOtherThreadsSubmitBeforeAnIterationRunsAfterWhatThePreviousOneLeftAndBeforeItsTimers() {
        ManualClock clock = ManualClock.create(); // time stands still: the timer is due at once
        Loop loop = open(options().withClock(clock));
        List<String> seen = new CopyOnWriteArrayList<>();
        Promise<Void> done = loop.newPromise();
        loop.callSoon(() -> {
            loop.callSoon(() -> seen.add("left by the previous iteration"));
            loop.callLater(Duration.ZERO, () -> {
                seen.add("timer");
                done.complete(null);
            });
            onAnotherThread(() -> loop.callSoon(() -> seen.add("foreign")));
        });
        loop.runUntilComplete(done);
        assertEquals(List.of("left by the previous iteration", "foreign", "timer"), seen);
    }

    @Test
    void aTimerAnotherThreadSchedulesDueAtOnceFiresInTheNextIteration() {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        List<String> seen = new CopyOnWriteArrayList<>();
        Promise<Void> done = loop.newPromise();
        loop.callSoon(() -> {
            onAnotherThread(() -> loop.callLater(Duration.ZERO, () -> seen.add("timer")));
            loop.callSoon(() -> {
                seen.add("next iteration");
                loop.callSoon(() -> {
                    seen.add("the one after");
                    done.complete(null);
                });
            });
        });
        loop.runUntilComplete(done);
        assertEquals(List.of("next iteration", "timer", "the one after"), seen);
    }

    @Test
    void timersOfEqualDeadlinesFireInSchedulingOrderWhicheverThreadsMadeThem() throws Exception {
        ManualClock clock = ManualClock.create(); // time stands still: every deadline below is the same
        Loop loop = open(options().withClock(clock));
        List<String> seen = new CopyOnWriteArrayList<>();
        loop.callSoon(() -> {
            onAnotherThread(() -> loop.callLater(Duration.ZERO, () -> seen.add("foreign")));
            loop.callLater(Duration.ZERO, () -> seen.add("loop"));
            loop.callLater(Duration.ZERO, loop::stop);
        });
        loop.runForever();
        if (seen.size() < 2) {
            spin(loop);
        }
        assertEquals(List.of("foreign", "loop"), seen);
    }

    @Test
    void aForeignCallSoonWakesALoopBlockedWithNoTimers() throws Exception {
        Loop loop = open();
        CountDownLatch started = new CountDownLatch(1);
        loop.callSoon(started::countDown);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Thread t = new Thread(loop::runForever, "loop-under-test");
        t.start();
        assertTrue(started.await(10, TimeUnit.SECONDS));
        for (int i = 0; i < 5; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            Thread.sleep(5); // let the loop go to sleep again; the wake-up is what is tested
            loop.callSoon(() -> {
                ranOn.set(Thread.currentThread());
                ran.countDown();
            });
            assertTrue(ran.await(10, TimeUnit.SECONDS), "a sleeping loop was not woken");
            assertSame(t, ranOn.get());
        }
        loop.stop();
        t.join(10_000);
        assertFalse(t.isAlive());
    }

    @Test
    void timersCanBeScheduledAndCancelledFromOtherThreads() throws Exception {
        Loop loop = open();
        Thread t = new Thread(loop::runForever);
        t.start();
        CountDownLatch fired = new CountDownLatch(1);
        AtomicInteger cancelledRan = new AtomicInteger();
        TimerHandle doomed = loop.callLater(Duration.ofMillis(50), cancelledRan::incrementAndGet);
        assertTrue(doomed.cancel());
        loop.callLater(Duration.ofMillis(1), fired::countDown);
        assertTrue(fired.await(10, TimeUnit.SECONDS));
        CountDownLatch later = new CountDownLatch(1);
        loop.callLater(Duration.ofMillis(80), later::countDown);
        assertTrue(later.await(10, TimeUnit.SECONDS));
        loop.stop();
        t.join(10_000);
        assertEquals(0, cancelledRan.get());
    }

    @Test
    void stopFromAnotherThreadWakesTheLoop() throws Exception {
        Loop loop = open();
        CountDownLatch running = new CountDownLatch(1);
        loop.callSoon(running::countDown);
        Thread t = new Thread(loop::runForever);
        t.start();
        assertTrue(running.await(10, TimeUnit.SECONDS));
        assertTrue(loop.isRunning());
        loop.stop();
        t.join(10_000);
        assertFalse(t.isAlive());
        assertFalse(loop.isRunning());
    }

    @Test
    void anInterruptOfTheLoopThreadStopsTheLoopAndStaysSet() throws Exception {
        Loop loop = open();
        CountDownLatch running = new CountDownLatch(1);
        loop.callSoon(running::countDown);
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        Thread t = new Thread(() -> {
            loop.runForever();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        }, "loop-under-test");
        t.start();
        assertTrue(running.await(10, TimeUnit.SECONDS));
        Thread.sleep(20); // let it block with nothing ready and no timers
        t.interrupt();
        // The contract: the loop stops at its next wake-up at the latest. Whether the interrupt alone
        // ends a blocking wait is the backend's (Selector.select: yes, a native epoll_wait: no),
        // tested in the backend's own module; here a callback wakes a loop still blocked.
        t.join(200);
        if (t.isAlive()) {
            loop.callSoon(() -> { });
        }
        t.join(10_000);
        assertFalse(t.isAlive(), "an interrupted loop kept running (or spinning): " + Arrays.toString(t.getStackTrace()));
        assertEquals(Boolean.TRUE, interruptedAfter.get(), "runForever must leave the interrupt status set");
        assertFalse(loop.isRunning());

        // Interrupted before it starts: one iteration, as after stop(), and a clear error for a future.
        Promise<String> never = loop.newPromise();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread u = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                loop.runUntilComplete(never);
            } catch (Throwable e) {
                failure.set(e);
            }
            stillInterrupted.set(Thread.interrupted());
            loop.callSoon(() -> never.complete("after clearing it")); // and the loop runs again
            try {
                assertEquals("after clearing it", loop.runUntilComplete(never));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        u.start();
        u.join(10_000);
        assertFalse(u.isAlive());
        assertInstanceOf(IllegalStateException.class, failure.get());
        assertTrue(failure.get().getMessage().contains("interrupted"), failure.get().getMessage());
        assertEquals(Boolean.TRUE, stillInterrupted.get());
        assertTrue(never.isDone());
    }
}
