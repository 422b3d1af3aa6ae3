package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine's contract, written once and run on every backend x timer strategy of the
 * {@link Matrix}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopContract {

    @Parameter
    Cell cell;

    /** The backend and timers under test; the suite adds clocks and debug settings itself. */
    protected LoopOptions options() {
        return cell.options();
    }

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    protected Loop open() {
        return open(options());
    }

    protected Loop open(LoopOptions o) {
        return loops.open(o);
    }

    /** Runs at least one iteration and returns. */
    protected static void spin(Loop loop) {
        loop.stop();
        loop.runForever();
    }

    // ------------------------------------------------------------------ identity

    @Test
    void reportsTheBackendAndTimersItWasOpenedWith() {
        Loop loop = open();
        assertEquals(options().backend(), loop.backendName());
        assertEquals(options().timers(), loop.timersName());
    }

    // ------------------------------------------------------------------ ordering

    @Test
    void callbacksRunInFifoOrder() {
        Loop loop = open();
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            int n = i;
            loop.callSoon(() -> seen.add(n));
        }
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(1000, seen.size());
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, seen.get(i));
        }
    }

    @Test
    void anIterationRunsOnlyWhatWasReadyWhenItBegan() {
        Loop loop = open();
        List<String> seen = new ArrayList<>();
        loop.callSoon(() -> {
            seen.add("a");
            loop.callSoon(() -> seen.add("b (scheduled by a)"));
            loop.stop();
        });
        loop.callSoon(() -> seen.add("c"));
        loop.runForever();
        // stop() lets the current iteration finish: c ran, b waits for the next one.
        assertEquals(List.of("a", "c"), seen);
        spin(loop);
        assertEquals(List.of("a", "c", "b (scheduled by a)"), seen);
    }

    @Test
    void runForeverCanBeCalledAgainAfterStop() {
        Loop loop = open();
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            loop.callSoon(() -> {
                runs.incrementAndGet();
                loop.stop();
            });
            loop.runForever();
            assertFalse(loop.isRunning());
        }
        assertEquals(3, runs.get());
    }

    @Test
    void aCallbackRescheduledInASelfLoopDoesNotStarveTimers() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        AtomicInteger spins = new AtomicInteger();
        Runnable[] self = new Runnable[1];
        self[0] = () -> {
            if (spins.incrementAndGet() < 1_000_000) {
                loop.callSoon(self[0]);
            }
        };
        loop.callSoon(self[0]);
        loop.callLater(Duration.ZERO, loop::stop);
        loop.runForever();
        assertTrue(spins.get() < 10, "a due timer ran only after " + spins.get() + " rescheduled callbacks");
    }

    // ------------------------------------------------------------------ timers

    @Test
    void timersFireInDeadlineOrderAndEqualDeadlinesInSchedulingOrder() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        List<String> seen = new ArrayList<>();
        loop.callLater(Duration.ofMillis(30), () -> seen.add("30"));
        loop.callLater(Duration.ofMillis(10), () -> seen.add("10a"));
        loop.callLater(Duration.ofMillis(20), () -> seen.add("20"));
        loop.callLater(Duration.ofMillis(10), () -> seen.add("10b"));
        loop.callLater(Duration.ofMillis(10), () -> seen.add("10c"));
        loop.callLater(Duration.ofMillis(31), loop::stop);
        loop.runForever();
        assertEquals(List.of("10a", "10b", "10c", "20", "30"), seen);
    }

    @Test
    void manyRandomTimersFireInOrderAndNeverEarly() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        Random rnd = new Random(42);
        int n = 20_000;
        long[] firedAt = new long[n];
        long[] due = new long[n];
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int id = i;
            due[i] = loop.time() + TimeUnit.MILLISECONDS.toNanos(rnd.nextInt(5_000));
            loop.callAt(due[i], () -> {
                firedAt[id] = loop.time();
                order.add(id);
            });
        }
        loop.callAt(loop.time() + TimeUnit.SECONDS.toNanos(6), loop::stop);
        loop.runForever();
        assertEquals(n, order.size());
        for (int k = 0; k < n; k++) {
            int id = order.get(k);
            assertTrue(firedAt[id] >= due[id], "timer " + id + " fired early");
            if (k > 0) {
                int prev = order.get(k - 1);
                assertTrue(due[prev] < due[id] || (due[prev] == due[id] && prev < id),
                        "timer " + id + " fired out of order after " + prev);
            }
        }
    }

    @Test
    void aTimerNeverFiresBeforeItsDeadline() {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        AtomicInteger fired = new AtomicInteger();
        loop.callLater(Duration.ofMillis(10), fired::incrementAndGet);
        clock.advanceNanos(TimeUnit.MILLISECONDS.toNanos(10) - 1);
        spin(loop);
        assertEquals(0, fired.get());
        clock.advanceNanos(1);
        spin(loop);
        assertEquals(1, fired.get());
    }

    @Test
    void zeroAndNegativeDelaysAreDeadlinesAlreadyPassedOrderedByDeadline() {
        ManualClock clock = ManualClock.create();
        clock.advance(Duration.ofSeconds(1));
        Loop loop = open(options().withClock(clock));
        List<String> seen = new ArrayList<>();
        loop.callLater(Duration.ZERO, () -> seen.add("0"));
        loop.callLater(Duration.ofMillis(-5), () -> seen.add("-5"));
        loop.callLater(Duration.ofMillis(-10), () -> seen.add("-10"));
        spin(loop);
        assertEquals(List.of("-10", "-5", "0"), seen);
    }

    @Test
    void aCancelledTimerNeverFiresAndIsRemovedAtOnce() {
        ManualClock clock = ManualClock.autoAdvancing();
        Loop loop = open(options().withClock(clock));
        AtomicInteger fired = new AtomicInteger();
        List<TimerHandle> handles = new ArrayList<>();
        loop.callSoon(() -> scheduleAndCancel(loop, fired, handles));
        spin(loop);
        loop.callLater(Duration.ofSeconds(200), loop::stop);
        loop.runForever();
        assertEquals(10_000, fired.get());
        assertFalse(handles.get(0).cancel(), "cancelling a timer that ran does nothing");
    }

    private static void scheduleAndCancel(Loop loop, AtomicInteger fired, List<TimerHandle> handles) {
        for (int i = 0; i < 100_000; i++) {
            handles.add(loop.callLater(Duration.ofSeconds(10 + i % 100), fired::incrementAndGet));
        }
        assertEquals(100_000, loop.diagnostics().pendingTimers());
        int kept = 0;
        for (int i = 0; i < handles.size(); i++) {
            if (i % 10 == 0) {
                kept++;
            } else {
                assertTrue(handles.get(i).cancel());
                assertTrue(handles.get(i).isCancelled());
                assertFalse(handles.get(i).cancel(), "a second cancel reports it did nothing");
            }
        }
        assertEquals(kept, loop.diagnostics().pendingTimers(), "cancelled timers must not stay queued");
    }

    @Test
    void aTimerCancelledByAnEarlierCallbackOfTheSameIterationDoesNotRun() {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        AtomicInteger fired = new AtomicInteger();
        TimerHandle[] second = new TimerHandle[1];
        loop.callLater(Duration.ofMillis(1), () -> second[0].cancel());
        second[0] = loop.callLater(Duration.ofMillis(1), fired::incrementAndGet);
        clock.advance(Duration.ofMillis(1));
        spin(loop);
        spin(loop);
        assertEquals(0, fired.get());
        assertTrue(second[0].isCancelled());
    }

    @Test
    void aManualClockAdvancedFromAnotherThreadWakesABlockedLoop() throws Exception {
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        CountDownLatch fired = new CountDownLatch(1);
        loop.callLater(Duration.ofHours(1), () -> {
            fired.countDown();
            loop.stop();
        });
        Thread t = new Thread(loop::runForever);
        t.start();
        clock.advance(Duration.ofMinutes(59));
        assertFalse(fired.await(50, TimeUnit.MILLISECONDS));
        clock.advance(Duration.ofMinutes(1));
        assertTrue(fired.await(10, TimeUnit.SECONDS));
        t.join(10_000);
        assertFalse(t.isAlive());
    }

    @Test
    void aSubMillisecondTimerNeitherSpinsNorOversleeps() {
        Loop loop = open();
        long delay = TimeUnit.MICROSECONDS.toNanos(300);
        int rounds = 20;
        long[] late = new long[rounds];
        AtomicInteger round = new AtomicInteger();
        long before = loop.diagnostics().iterations();
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            long due = loop.time() + delay;
            loop.callAt(due, () -> {
                late[round.get()] = loop.time() - due;
                if (round.incrementAndGet() < rounds) {
                    next[0].run();
                } else {
                    loop.stop();
                }
            });
        };
        loop.callSoon(next[0]);
        loop.runForever();
        long iterations = loop.diagnostics().iterations() - before;
        for (long l : late) {
            assertTrue(l >= 0, "fired early by " + l + " ns");
        }
        // Spinning would take thousands of iterations per 300 us wait; a poll plus a park takes few.
        assertTrue(iterations < rounds * 8L, "the loop spun: " + iterations + " iterations for " + rounds + " timers");
        long[] sorted = late.clone();
        java.util.Arrays.sort(sorted);
        assertTrue(sorted[rounds / 2] < TimeUnit.MILLISECONDS.toNanos(1),
                "median lateness " + sorted[rounds / 2] + " ns: the wait was rounded up to the backend's resolution");
    }

    @Test
    void callLaterWithAHugeDelaySaturatesInsteadOfOverflowing() {
        Loop loop = open();
        TimerHandle h = loop.callLater(Duration.ofSeconds(Long.MAX_VALUE), () -> { });
        assertTrue(h.deadline() > loop.time());
        assertTrue(h.cancel());
    }

    // ------------------------------------------------------------------ other threads

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

    /** Runs {@code r} on a new thread and waits for it: what it did happens-before what follows. */
    private static void onAnotherThread(Runnable r) {
        Thread t = new Thread(r);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
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

    // ------------------------------------------------------------------ close

    @Test
    void closeRunsWhatWasScheduledAndCancelsPendingTimers() {
        Loop loop = open();
        AtomicInteger ran = new AtomicInteger();
        loop.callSoon(ran::incrementAndGet);
        loop.callSoon(() -> loop.callSoon(ran::incrementAndGet));
        TimerHandle pending = loop.callLater(Duration.ofHours(1), ran::incrementAndGet);
        loop.close();
        assertEquals(2, ran.get());
        assertTrue(pending.isCancelled());
        assertTrue(loop.isClosed());
    }

    @Test
    void anyCallOnAClosedLoopSaysItIsClosed() {
        Loop loop = open();
        loop.close();
        loop.close(); // idempotent
        String m1 = assertThrows(RuntimeException.class, () -> loop.callSoon(() -> { })).getMessage();
        String m2 = assertThrows(RuntimeException.class, () -> loop.callLater(Duration.ZERO, () -> { })).getMessage();
        String m3 = assertThrows(IllegalStateException.class, loop::runForever).getMessage();
        for (String m : List.of(m1, m2, m3)) {
            assertTrue(m.contains("closed"), m);
        }
    }

    @Test
    void everySubmissionAfterCloseIsRefusedWithTheSameExceptionFromAnyThread() throws Exception {
        Loop loop = open();
        loop.close();
        List<Runnable> submissions = List.of(
                () -> loop.callSoon(() -> { }),
                () -> loop.execute(() -> { }),
                () -> loop.callLater(Duration.ZERO, () -> { }),
                () -> loop.callAt(loop.time(), () -> { }),
                () -> loop.spawn(() -> null),
                () -> loop.offload(() -> null));
        for (Runnable submit : submissions) {
            for (boolean elsewhere : new boolean[] {false, true}) {
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Runnable attempt = () -> {
                    try {
                        submit.run();
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                };
                if (elsewhere) {
                    onAnotherThread(attempt);
                } else {
                    attempt.run();
                }
                assertInstanceOf(java.util.concurrent.RejectedExecutionException.class, thrown.get(),
                        "submission " + submissions.indexOf(submit) + (elsewhere ? " from another thread" : ""));
                assertTrue(thrown.get().getMessage().contains("closed"), thrown.get().getMessage());
            }
        }
    }

    @Test
    void completingAFutureAfterItsLoopClosedTakesEffectWithoutThrowingAtTheCompleter() throws Exception {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        Promise<String> q = loop.newPromise();
        AtomicInteger callbacks = new AtomicInteger();
        p.onDone(f -> callbacks.incrementAndGet());
        q.onDone(f -> callbacks.incrementAndGet());
        loop.close();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        onAnotherThread(() -> {
            try {
                p.complete("late");
                assertTrue(q.cancel());
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        assertNull(thrown.get(), () -> "the completer got " + thrown.get());
        assertEquals("late", p.result());
        assertTrue(q.isCancelled());
        assertEquals(0, callbacks.get(), "callbacks of a closed loop never run");
    }

    @Test
    void closeOnARunningLoopThrowsAndSaysWhatToDo() {
        Loop loop = open();
        AtomicReference<Throwable> error = new AtomicReference<>();
        loop.callSoon(() -> {
            try {
                loop.close();
            } catch (Throwable t) {
                error.set(t);
            }
            loop.stop();
        });
        loop.runForever();
        assertNotNull(error.get());
        assertTrue(error.get() instanceof IllegalStateException);
        assertTrue(error.get().getMessage().contains("running"), error.get().getMessage());
        assertFalse(loop.isClosed());
    }

    @Test
    void submissionsRacingWithCloseAreEitherRunOrRefused() throws Exception {
        for (int round = 0; round < 30; round++) {
            Loop loop = open();
            int producers = 2;
            AtomicLong accepted = new AtomicLong();
            AtomicLong ran = new AtomicLong();
            List<TimerHandle> timers = new CopyOnWriteArrayList<>();
            AtomicInteger timersRan = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                boolean withTimers = p == 0;
                Thread producer = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; ; i++) {
                        try {
                            if (withTimers && i % 8 == 0) {
                                timers.add(loop.callLater(Duration.ZERO, timersRan::incrementAndGet));
                            } else {
                                loop.callSoon(ran::incrementAndGet); // a new object each time
                                accepted.incrementAndGet();
                            }
                        } catch (RuntimeException refused) {
                            assertTrue(refused.getMessage().contains("closed"), refused.getMessage());
                            return;
                        }
                    }
                });
                producer.start();
                threads.add(producer);
            }
            if (round % 2 == 1) {
                Thread runner = new Thread(loop::runForever); // close while it runs: stop first
                runner.start();
                go.countDown();
                Thread.sleep(1);
                loop.stop();
                runner.join(10_000);
            } else {
                go.countDown();
                Thread.sleep(1);
            }
            loop.close();
            for (Thread t : threads) {
                t.join(10_000);
                assertFalse(t.isAlive());
            }
            assertEquals(accepted.get(), ran.get(), "round " + round + ": accepted callbacks were lost at close");
            long settled = timers.stream().filter(h -> h.isCancelled()).count() + timersRan.get();
            assertEquals(timers.size(), settled, "round " + round + ": every accepted timer either ran or was cancelled");
        }
    }

    // ------------------------------------------------------------------ errors and debug

    @Test
    void anExceptionInACallbackGoesToTheHandlerAndTheLoopCarriesOn() {
        Loop loop = open();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Object> sources = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> {
            errors.add(error);
            sources.add(source);
        });
        RuntimeException boom = new RuntimeException("boom");
        Runnable bad = () -> {
            throw boom;
        };
        AtomicInteger after = new AtomicInteger();
        loop.callSoon(bad);
        loop.callSoon(after::incrementAndGet);
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(List.of(boom), errors);
        assertEquals(1, after.get());
        assertTrue(sources.get(0).toString().contains(bad.toString()));
    }

    @Test
    void aFailingExceptionHandlerDoesNotKillTheLoop() {
        Loop loop = open();
        loop.setExceptionHandler((l, m, e, s) -> {
            throw new IllegalStateException("handler broke");
        });
        AtomicInteger after = new AtomicInteger();
        loop.callSoon(() -> {
            throw new RuntimeException("first");
        });
        loop.callSoon(after::incrementAndGet);
        spin(loop);
        assertEquals(1, after.get());
    }

    @Test
    void aThrowingExceptionHandlerLosesNeitherItsFailureNorTheOriginal() {
        Loop loop = open();
        IllegalStateException handlerBroke = new IllegalStateException("handler broke");
        loop.setExceptionHandler((l, m, e, s) -> {
            throw handlerBroke;
        });
        RuntimeException original = new RuntimeException("original");
        try (LogCapture log = LogCapture.start("dev.loop")) {
            loop.callSoon(() -> {
                throw original;
            });
            spin(loop);
            assertEquals(List.of(handlerBroke), log.thrown(), log.text());
            assertEquals(List.of(original), Arrays.asList(handlerBroke.getSuppressed()));
            assertTrue(log.text().contains("exception handler failed"), log.text());
        }
    }

    @Test
    void theLoopsErrorPathNeverThrowsEvenWhenLoggingAndToStringFail() {
        Loop loop = open();
        loop.setExceptionHandler((l, m, e, s) -> {
            throw new IllegalStateException("handler broke");
        });
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.loop");
        java.util.logging.Handler broken = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                throw new IllegalStateException("logging broke");
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(broken);
        try {
            Runnable nasty = new Runnable() {
                @Override
                public void run() {
                    throw new RuntimeException("callback failed");
                }

                @Override
                public String toString() {
                    throw new IllegalStateException("toString broke");
                }
            };
            AtomicInteger after = new AtomicInteger();
            long before = loop.diagnostics().failedReports();
            loop.callSoon(nasty);
            loop.callSoon(after::incrementAndGet);
            spin(loop);
            assertEquals(1, after.get(), "the loop carried on");
            assertEquals(before + 1, loop.diagnostics().failedReports(), "the report that could not be logged is counted");
        } finally {
            jul.removeHandler(broken);
        }
    }

    @Test
    void debugModeLogsSlowCallbacksWithWhereTheyWereScheduled() {
        Loop loop = open(options().withDebug(true).withSlowCallbackThreshold(Duration.ZERO));
        try (LogCapture log = LogCapture.start("dev.loop")) {
            Runnable slow = new Runnable() {
                @Override
                public void run() {
                }

                @Override
                public String toString() {
                    return "the-slow-one";
                }
            };
            loop.callSoon(slow);
            spin(loop);
            String text = log.text();
            assertTrue(text.contains("the-slow-one"), text);
            assertTrue(text.contains("debugModeLogsSlowCallbacksWithWhereTheyWereScheduled"), text);
        }
    }

    @Test
    void debugModeReportsAFailedFutureNobodyLookedAt() throws Exception {
        Loop loop = open(options().withDebug(true));
        List<String> reports = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> reports.add(message + " " + error));
        failAndForget(loop);
        Promise<String> looked = loop.newPromise();
        looked.fail(new IllegalStateException("seen"));
        assertNotNull(looked.exception());
        for (int i = 0; i < 100 && reports.isEmpty(); i++) {
            System.gc();
            Thread.sleep(20);
            spin(loop);
        }
        assertEquals(1, reports.size(), String.valueOf(reports));
        assertTrue(reports.get(0).contains("never retrieved") && reports.get(0).contains("forgotten"), reports.get(0));
        assertNotNull(looked);
    }

    private static void failAndForget(Loop loop) {
        loop.<String>newPromise().fail(new IllegalStateException("forgotten"));
    }

    // ------------------------------------------------------------------ futures

    @Test
    void futureCallbacksRunOnTheLoopNeverInline() throws Exception {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        List<String> seen = new ArrayList<>();
        p.onDone(f -> seen.add("first " + f.result()));
        p.onDone(f -> seen.add("second " + f.result()));
        Thread completer = new Thread(() -> p.complete("x"));
        completer.start();
        completer.join();
        assertTrue(seen.isEmpty(), "callbacks must not run in the completing thread");
        spin(loop);
        assertEquals(List.of("first x", "second x"), seen);
        p.onDone(f -> seen.add("late"));
        assertEquals(2, seen.size(), "a callback added after completion must not run inline");
        spin(loop);
        assertEquals(List.of("first x", "second x", "late"), seen);
    }

    @Test
    void futureStatesAndTheirErrors() {
        Loop loop = open();
        Promise<Integer> p = loop.newPromise();
        assertFalse(p.isDone());
        assertTrue(assertThrows(IllegalStateException.class, p::result).getMessage().contains("pending"));
        assertTrue(assertThrows(IllegalStateException.class, p::exception).getMessage().contains("pending"));
        p.complete(7);
        assertTrue(p.isDone());
        assertTrue(p.isSuccess());
        assertEquals(7, p.result());
        assertNull(p.exception());
        String msg = assertThrows(IllegalStateException.class, () -> p.complete(8)).getMessage();
        assertTrue(msg.contains("done with value 7"), msg);
        assertFalse(p.tryFail(new RuntimeException()));
        assertFalse(p.cancel());

        Promise<Integer> failed = loop.newPromise();
        Exception checked = new java.io.IOException("disk");
        failed.fail(checked);
        assertSame(checked, failed.exception());
        Throwable thrown = assertThrows(Throwable.class, failed::result);
        assertSame(checked, thrown, "result() rethrows the very exception");
        String m2 = assertThrows(IllegalStateException.class, () -> failed.complete(1)).getMessage();
        assertTrue(m2.contains("failed with"), m2);

        Promise<Integer> cancelled = loop.newPromise();
        assertTrue(cancelled.cancel());
        assertTrue(cancelled.isCancelled());
        assertTrue(cancelled.isFailed());
        assertThrows(java.util.concurrent.CancellationException.class, cancelled::result);
        assertThrows(java.util.concurrent.CancellationException.class, cancelled::exception);
        String m3 = assertThrows(IllegalStateException.class, () -> cancelled.fail(new RuntimeException())).getMessage();
        assertTrue(m3.contains("cancelled"), m3);
    }

    /** Values that look like what a future keeps while pending (callbacks, arrays of them) or like nothing. */
    @Test
    void aFutureCompletesWithAnyValueEvenOneThatLooksLikeCallbacks() {
        Loop loop = open();
        java.util.function.Consumer<Object> consumer = x -> { };
        Object[] array = {consumer};
        Promise<Object> other = loop.newPromise();
        List<Object> values = Arrays.asList(consumer, array, new String[] {"s"}, other, null, "plain");
        for (Object value : values) {
            Promise<Object> p = loop.newPromise();
            List<Object> seen = new ArrayList<>();
            p.onDone(f -> seen.add(f.result()));
            assertTrue(p.tryComplete(value));
            assertTrue(p.isDone(), "done with " + value);
            assertTrue(p.isSuccess());
            assertSame(value, p.result());
            assertNull(p.exception());
            assertFalse(p.tryComplete("again"), "a second completion must lose");
            assertFalse(p.removeCallback(f -> { }));
            p.onDone(f -> seen.add(f.result()));
            spin(loop);
            assertEquals(2, seen.size(), "both callbacks ran once for " + value);
            assertSame(value, seen.get(0));
            assertSame(value, seen.get(1));
        }
    }

    @Test
    void aCallbackCanBeRemovedBeforeItRuns() {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        List<String> seen = new ArrayList<>();
        java.util.function.Consumer<LoopFuture<String>> a = f -> seen.add("a");
        java.util.function.Consumer<LoopFuture<String>> b = f -> seen.add("b");
        p.onDone(a);
        p.onDone(b);
        assertTrue(p.removeCallback(a));
        assertFalse(p.removeCallback(a));
        p.complete("v");
        // completed, handed to the loop, but not run yet: still removable on the loop thread
        java.util.function.Consumer<LoopFuture<String>> c = f -> seen.add("c");
        Promise<String> q = loop.newPromise();
        q.onDone(c);
        q.onDone(f -> seen.add("d"));
        q.complete("w");
        List<Boolean> removed = new ArrayList<>();
        loop.callSoon(() -> removed.add(q.removeCallback(c)));
        // q's callbacks were scheduled before the remover, so they run first: removal is too late.
        spin(loop);
        assertEquals(List.of("b", "c", "d"), seen);
        assertEquals(List.of(false), removed);
        Promise<String> r = loop.newPromise();
        java.util.function.Consumer<LoopFuture<String>> e = f -> seen.add("e");
        r.onDone(e);
        loop.callSoon(() -> {
            r.complete("x");
            removed.add(r.removeCallback(e)); // handed to the loop, not run yet: still removable
        });
        spin(loop);
        spin(loop);
        assertEquals(List.of(false, true), removed);
        assertEquals(List.of("b", "c", "d"), seen);
    }

    @Test
    void completingFromManyThreadsAtOnceHasExactlyOneWinner() throws Exception {
        Loop loop = open();
        for (int round = 0; round < 200; round++) {
            Promise<Integer> p = loop.newPromise();
            AtomicInteger winners = new AtomicInteger();
            AtomicInteger callbacks = new AtomicInteger();
            p.onDone(f -> callbacks.incrementAndGet());
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int v = t;
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    boolean won = v == 3 ? p.cancel() : v == 2 ? p.tryFail(new RuntimeException()) : p.tryComplete(v);
                    if (won) {
                        winners.incrementAndGet();
                    }
                });
                th.start();
                ts.add(th);
            }
            go.countDown();
            for (Thread th : ts) {
                th.join();
            }
            spin(loop);
            assertEquals(1, winners.get());
            assertEquals(1, callbacks.get());
        }
    }

    @Test
    void completableFutureInterop() throws Exception {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        java.util.concurrent.CompletableFuture<String> cf = p.toCompletableFuture();
        p.complete("v");
        spin(loop);
        assertEquals("v", cf.get(1, TimeUnit.SECONDS));

        Promise<String> q = loop.newPromise();
        q.toCompletableFuture().cancel(false);
        assertTrue(q.isCancelled(), "cancelling the CompletableFuture cancels the loop future");

        java.util.concurrent.CompletableFuture<Integer> source = new java.util.concurrent.CompletableFuture<>();
        LoopFuture<Integer> from = LoopFuture.from(source, loop);
        assertSame(loop, from.loop());
        source.completeExceptionally(new java.util.concurrent.CompletionException(new java.io.IOException("x")));
        assertTrue(from.exception() instanceof java.io.IOException);
    }

    @Test
    void allAndAny() {
        Loop loop = open();
        Promise<Integer> a = loop.newPromise();
        Promise<Integer> b = loop.newPromise();
        LoopFuture<List<Integer>> all = LoopFuture.all(loop, List.of(a, b));
        LoopFuture<Integer> any = LoopFuture.any(loop, List.of(a, b));
        b.complete(2);
        spin(loop);
        assertFalse(all.isDone());
        assertEquals(2, any.result());
        a.complete(1);
        spin(loop);
        assertEquals(List.of(1, 2), all.result());

        Promise<Integer> c = loop.newPromise();
        Promise<Integer> d = loop.newPromise();
        LoopFuture<List<Integer>> failing = LoopFuture.all(loop, List.of(c, d));
        RuntimeException boom = new RuntimeException("boom");
        d.fail(boom);
        spin(loop);
        assertSame(boom, failing.exception());
        assertEquals(List.of(), LoopFuture.all(loop, List.<LoopFuture<Integer>>of()).result());
        assertThrows(IllegalArgumentException.class, () -> LoopFuture.any(loop, List.of()));
    }

    @Test
    void aRefusedRunUntilCompleteLeavesNoStaleStopBehind() {
        Loop outer = open();
        Loop refused = open();
        Promise<String> alreadyDone = refused.newPromise();
        alreadyDone.complete("done");
        Promise<String> pending = refused.newPromise();
        List<String> errors = new ArrayList<>();
        Promise<Void> tried = outer.newPromise();
        outer.callSoon(() -> {
            for (Promise<String> p : List.of(alreadyDone, pending)) {
                try {
                    refused.runUntilComplete(p); // another loop runs on this thread: refused
                    errors.add("not refused");
                } catch (IllegalStateException e) {
                    errors.add(e.getMessage());
                }
            }
            tried.complete(null);
        });
        outer.runUntilComplete(tried);
        assertEquals(2, errors.size());
        errors.forEach(m -> assertTrue(m.contains("another loop is already running"), m));
        // The refused loop runs to completion next time: no stop left over from the refused calls.
        Promise<String> later = refused.newPromise();
        int[] hops = {0};
        Runnable[] hop = new Runnable[1];
        hop[0] = () -> {
            if (++hops[0] < 5) {
                refused.callSoon(hop[0]); // a few iterations, so a stale stop would end the run early
            } else {
                later.complete("ran to completion");
            }
        };
        refused.callSoon(hop[0]);
        assertEquals("ran to completion", refused.runUntilComplete(later));
        pending.complete("late");
        assertEquals("late", refused.runUntilComplete(pending));
    }

    @Test
    void runUntilCompleteReturnsTheResultOrThrowsTheException() {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        loop.callLater(Duration.ofMillis(1), () -> p.complete("done"));
        assertEquals("done", loop.runUntilComplete(p));
        Promise<String> q = loop.newPromise();
        IllegalStateException boom = new IllegalStateException("boom");
        loop.callSoon(() -> q.fail(boom));
        assertSame(boom, assertThrows(IllegalStateException.class, () -> loop.runUntilComplete(q)));
        Promise<String> never = loop.newPromise();
        loop.callSoon(loop::stop);
        String m = assertThrows(IllegalStateException.class, () -> loop.runUntilComplete(never)).getMessage();
        assertTrue(m.contains("stopped before the future completed"), m);
    }
}
