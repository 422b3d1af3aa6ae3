package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.Promise;
import dev.loop.Task;
import dev.loop.TaskBody;
import dev.loop.TaskGroup;
import dev.loop.TaskGroupException;
import dev.loop.TaskLocal;
import dev.loop.sync.AsyncCondition;
import dev.loop.sync.AsyncEvent;
import dev.loop.sync.AsyncLock;
import dev.loop.sync.AsyncQueue;
import dev.loop.sync.AsyncSemaphore;
import dev.loop.sync.QueueClosedException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of tasks, task groups, timeouts, task-locals, queues and sync primitives, written
 * once and run on every backend x timer strategy x task mechanism of the {@link Matrix}. Every test
 * runs on an auto-advancing {@link ManualClock}: sleeps cost no real time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskContract {

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    /** The backend, timers and task mechanism under test. */
    protected LoopOptions options() {
        return cell.options();
    }

    protected Loop open() {
        return open(options().withClock(ManualClock.autoAdvancing()));
    }

    protected Loop open(LoopOptions o) {
        return loops.open(o);
    }

    private static long millis(Loop loop) {
        return TimeUnit.NANOSECONDS.toMillis(loop.time());
    }

    private static <T> T runTask(Loop loop, TaskBody<T> body) {
        return loop.runUntilComplete(loop.spawn(body));
    }

    // ------------------------------------------------------------------ basics

    @Test
    void usesTheRequestedMechanism() {
        Loop loop = open();
        assertEquals("v", runTask(loop, () -> "v"));
        String name = loop.diagnostics().taskMechanism();
        if (!"auto".equals(cell.mechanism())) {
            assertEquals(cell.mechanism(), name);
        } else {
            assertEquals(Matrix.continuationsExported() ? "continuation" : "threads", name);
        }
    }

    @Test
    void runReturnsTheMainTasksValueCancelsTheRestAndCloses() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        String v = loop.run(() -> {
            loop.spawn(() -> {
                try {
                    Async.sleep(Duration.ofHours(1));
                } finally {
                    log.add("leftover cleaned up at " + millis(loop));
                }
                return null;
            });
            Async.sleep(Duration.ofMillis(5));
            return "main";
        });
        assertEquals("main", v);
        assertEquals(List.of("leftover cleaned up at 5"), log);
        assertTrue(loop.isClosed());
    }

    @Test
    void aPlainMethodCalledFromATaskMayAwait() {
        Loop loop = open();
        assertEquals(42, runTask(loop, TaskContract::helperThatSleeps));
        assertEquals(10, millis(loop));
    }

    private static int helperThatSleeps() {
        Async.sleep(Duration.ofMillis(10));
        return 42;
    }

    @Test
    void awaitingADoneFutureReturnsAtOnceWithoutGivingUpTheLoop() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            Promise<String> p = loop.newPromise();
            p.complete("x");
            loop.callSoon(() -> log.add("callback"));
            log.add(Async.await(p));
            log.add("after await");
            Async.yieldNow();
            return null;
        });
        assertEquals(List.of("x", "after await", "callback"), log);
    }

    @Test
    void yieldNowInterleavesTasks() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        Task<?> a = loop.spawn(() -> {
            for (int i = 0; i < 3; i++) {
                log.add("a" + i);
                Async.yieldNow();
            }
            return null;
        });
        Task<?> b = loop.spawn(() -> {
            for (int i = 0; i < 3; i++) {
                log.add("b" + i);
                Async.yieldNow();
            }
            return null;
        });
        loop.runUntilComplete(LoopFuture.all(loop, List.of(a, b)));
        assertEquals(List.of("a0", "b0", "a1", "b1", "a2", "b2"), log);
    }

    @Test
    void theBodysExceptionIsTheSameObjectForEveryAwaiter() {
        Loop loop = open();
        IOException boom = new IOException("boom");
        Task<String> failing = loop.spawn(() -> {
            Async.sleep(Duration.ofMillis(1));
            throw boom;
        });
        List<Throwable> seen = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 3; i++) {
            loop.spawn(() -> {
                try {
                    return Async.await(failing);
                } catch (Exception e) {
                    seen.add(e);
                    return null;
                }
            });
        }
        Throwable fromRun = assertThrows(IOException.class, () -> loop.runUntilComplete(failing));
        runTask(loop, () -> {
            Async.yieldNow();
            return null;
        });
        assertSame(boom, fromRun);
        assertEquals(3, seen.size());
        seen.forEach(e -> assertSame(boom, e));
        assertTrue(failing.isFailed());
    }

    @Test
    void loopCurrentAndCurrentTaskAreKnownInsideAndAClearErrorOutside() {
        Loop loop = open();
        Task<Loop> t = loop.spawn(() -> {
            assertTrue(Async.inTask());
            assertEquals("Task-", Async.currentTask().name().substring(0, 5));
            return Loop.current();
        });
        assertSame(loop, loop.runUntilComplete(t));
        IllegalStateException e = assertThrows(IllegalStateException.class, Loop::current);
        assertTrue(e.getMessage().contains("not running a loop"), e.getMessage());
        IllegalStateException e2 = assertThrows(IllegalStateException.class, () -> Async.sleep(Duration.ZERO));
        assertTrue(e2.getMessage().contains("outside a task"), e2.getMessage());
    }

    // ------------------------------------------------------------------ the seed programs

    @Test
    void countdownAndCountupInterleaveInTimeOrder() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        loop.run(() -> {
            Task<?> down = loop.spawn(() -> {
                for (int n = 5; n > 0; n--) {
                    log.add(millis(loop) + " down " + n);
                    Async.sleep(Duration.ofMillis(1000));
                }
                return null;
            });
            Task<?> up = loop.spawn(() -> {
                for (int n = 0; n < 20; n++) {
                    log.add(millis(loop) + " up " + n);
                    Async.sleep(Duration.ofMillis(300));
                }
                return null;
            });
            Async.await(down);
            Async.await(up);
            return null;
        });
        assertEquals(25, log.size());
        long last = -1;
        for (String line : log) {
            long at = Long.parseLong(line.split(" ")[0]);
            assertTrue(at >= last, "out of time order: " + log);
            last = at;
        }
        assertTrue(log.indexOf("1000 down 4") > log.indexOf("900 up 3"), log.toString());
        assertTrue(log.indexOf("1000 down 4") < log.indexOf("1200 up 4"), log.toString());
    }

    @Test
    void producerAndConsumerOverAClosedQueueDrainEveryItem() {
        Loop loop = open();
        AsyncQueue<Integer> q = new AsyncQueue<>(3);
        List<Integer> got = new ArrayList<>();
        loop.run(() -> {
            Task<?> consumer = loop.spawn(() -> {
                try {
                    for (;;) {
                        got.add(q.take());
                        Async.sleep(Duration.ofMillis(2));
                    }
                } catch (QueueClosedException end) {
                    return null;
                }
            });
            for (int i = 0; i < 50; i++) {
                q.put(i);
            }
            q.close();
            Async.await(consumer);
            return null;
        });
        assertEquals(50, got.size());
        for (int i = 0; i < 50; i++) {
            assertEquals(i, got.get(i));
        }
    }

    @Test
    void aThousandRandomSleepersFinishInAboutOneSecondOfLoopTime() {
        Loop loop = open();
        Random rnd = new Random(7);
        AtomicInteger done = new AtomicInteger();
        loop.run(() -> {
            List<Task<?>> all = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                long ms = rnd.nextInt(1000);
                all.add(loop.spawn(() -> {
                    Async.sleep(Duration.ofMillis(ms));
                    done.incrementAndGet();
                    return null;
                }));
            }
            for (Task<?> t : all) {
                Async.await(t);
            }
            return null;
        });
        assertEquals(1000, done.get());
        assertTrue(millis(loop) < 1000, "took " + millis(loop) + " ms of loop time");
    }

    // ------------------------------------------------------------------ cancellation

    @Test
    void cancelDeliversAtTheSuspensionPointAndFinallyRuns() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        Task<?> t = loop.spawn(() -> {
            try {
                Async.sleep(Duration.ofHours(1));
                log.add("not reached");
            } finally {
                log.add("finally");
            }
            return null;
        });
        loop.callLater(Duration.ofMillis(3), t::cancel);
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
        assertTrue(t.isCancelled());
        assertEquals(List.of("finally"), log);
        assertEquals(3, millis(loop));
        assertFalse(t.cancel(), "cancelling a done task does nothing");
    }

    @Test
    void aTaskMayCatchTheCancellationAndCleanUp() {
        Loop loop = open();
        Task<String> t = loop.spawn(() -> {
            try {
                Async.sleep(Duration.ofHours(1));
                return "slept";
            } catch (CancellationException e) {
                Async.sleep(Duration.ofMillis(5)); // asynchronous cleanup still works
                Async.currentTask().uncancel();
                return "cleaned up";
            }
        });
        loop.callLater(Duration.ofMillis(1), t::cancel);
        assertEquals("cleaned up", loop.runUntilComplete(t));
        assertEquals(0, t.cancelling());
    }

    @Test
    void aTaskCancelledBeforeItStartsNeverRunsItsBody() {
        Loop loop = open();
        AtomicInteger ran = new AtomicInteger();
        Task<?> t = loop.spawn(() -> ran.incrementAndGet());
        assertTrue(t.cancel());
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
        assertEquals(0, ran.get());
    }

    @Test
    void anAwaiterOfACancelledTaskSeesTheCancellation() {
        Loop loop = open();
        Task<?> inner = loop.spawn(() -> {
            Async.sleep(Duration.ofHours(1));
            return null;
        });
        Task<String> outer = loop.spawn(() -> {
            try {
                Async.await(inner);
                return "no";
            } catch (CancellationException e) {
                return "saw it";
            }
        });
        loop.callLater(Duration.ofMillis(1), inner::cancel);
        assertEquals("saw it", loop.runUntilComplete(outer));
    }

    @Test
    void cancellingAnAwaiterCancelsWhatItAwaits() {
        Loop loop = open();
        Task<?> inner = loop.spawn(() -> {
            Async.sleep(Duration.ofHours(1));
            return null;
        });
        Task<?> outer = loop.spawn(() -> Async.await(inner));
        loop.callLater(Duration.ofMillis(1), outer::cancel);
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(outer));
        assertTrue(inner.isCancelled());
    }

    @Test
    void aCancelAfterTheAwaitedFutureCompletedButBeforeResumingWins() {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        AtomicReference<Task<String>> ref = new AtomicReference<>();
        Task<String> t = loop.spawn(() -> Async.await(p));
        ref.set(t);
        loop.callLater(Duration.ofMillis(1), () -> {
            p.complete("value"); // wakes the task in a later callback...
            t.cancel();          // ...but the cancel arrives first
        });
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
        assertEquals("value", p.result());
    }

    @Test
    void cancelFromAnotherThreadIsCarriedToTheLoop() throws Exception {
        Loop loop = open();
        Task<?> t = loop.spawn(() -> {
            Async.sleep(Duration.ofHours(1));
            return null;
        });
        loop.callLater(Duration.ofMillis(1), () -> {
            Thread th = new Thread(() -> assertTrue(t.cancel()));
            th.start();
            try {
                th.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
    }

    @Test
    void shieldKeepsTheWorkRunningWhenTheAwaiterIsCancelled() {
        Loop loop = open();
        Task<String> work = loop.spawn(() -> {
            Async.sleep(Duration.ofMillis(10));
            return "done";
        });
        Task<?> awaiter = loop.spawn(() -> Async.await(Async.shield(work)));
        loop.callLater(Duration.ofMillis(1), awaiter::cancel);
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(awaiter));
        assertEquals("done", loop.runUntilComplete(work));
    }

    @Test
    void aTaskThatCancelsItselfGetsTheCancellationAtItsNextSuspensionWhateverItAwaits() {
        Loop loop = open();
        Promise<String> never = loop.newPromise();
        AsyncQueue<String> queue = new AsyncQueue<>();
        List<String> log = new ArrayList<>();
        Task<String> t = loop.spawn(() -> {
            for (String what : List.of("promise", "sleep", "queue", "yield")) {
                Async.currentTask().cancel();
                try {
                    switch (what) {
                        case "promise" -> Async.await(never);
                        case "sleep" -> Async.sleep(Duration.ofHours(1));
                        case "queue" -> queue.take();
                        default -> Async.yieldNow();
                    }
                    log.add(what + ": went on");
                } catch (CancellationException e) {
                    log.add(what + ": cancelled at " + millis(loop));
                    Async.currentTask().uncancel();
                }
            }
            queue.offer("still usable");
            return queue.take();
        });
        assertEquals("still usable", runWithWatchdog(loop, t));
        assertEquals(List.of("promise: cancelled at 0", "sleep: cancelled at 0", "queue: cancelled at 0",
                "yield: cancelled at 0"), log);
        assertTrue(never.isCancelled(), "what the task awaited is cancelled with it, as asyncio does");
    }

    @Test
    void aCancelReArmedByATaskGroupComesAtTheNextSuspension() {
        Loop loop = open();
        Promise<String> never = loop.newPromise();
        Task<String> t = loop.spawn(() -> {
            try {
                TaskGroup.run(g -> {
                    g.spawn(() -> {
                        try {
                            Async.sleep(Duration.ofHours(1));
                        } finally {
                            throw new IOException("failed while being cancelled");
                        }
                    });
                    Async.sleep(Duration.ofHours(1));
                    return null;
                });
                return "the group did not fail";
            } catch (TaskGroupException failures) {
                // The outside cancel came out as the group's failures; it is re-armed, not lost.
                try {
                    Async.await(never);
                    return "the cancel was lost";
                } catch (CancellationException c) {
                    return "re-armed cancel delivered at " + millis(loop);
                }
            }
        });
        loop.callLater(Duration.ofMillis(1), t::cancel);
        assertEquals("re-armed cancel delivered at 1", runWithWatchdog(loop, t));
    }

    @Test
    void cancellingATaskCancelsTheCompletionStageItAwaits() {
        Loop loop = open();
        CompletableFuture<String> viaAwait = new CompletableFuture<>();
        CompletableFuture<String> viaFrom = new CompletableFuture<>();
        Task<String> a = loop.spawn(() -> Async.await(viaAwait));
        Task<String> b = loop.spawn(() -> Async.await(LoopFuture.from(viaFrom, loop)));
        loop.callLater(Duration.ofMillis(1), () -> {
            a.cancel();
            b.cancel();
        });
        assertThrows(CancellationException.class, () -> runWithWatchdog(loop, a));
        assertThrows(CancellationException.class, () -> runWithWatchdog(loop, b));
        runTask(loop, () -> null); // the stage is cancelled by a callback of the loop
        assertTrue(viaAwait.isCancelled(), "the stage awaited with Async.await is cancelled");
        assertTrue(viaFrom.isCancelled(), "the stage behind LoopFuture.from is cancelled");
    }

    @Test
    void cancellingATaskAwaitingAllCancelsTheUnfinishedChildren() {
        Loop loop = open();
        Task<String> sleeper = loop.spawn(() -> {
            Async.sleep(Duration.ofHours(1));
            return "slept";
        });
        Promise<String> pending = loop.newPromise();
        Promise<String> done = loop.newPromise();
        done.complete("done");
        LoopFuture<List<String>> all = LoopFuture.all(loop, List.of(sleeper, pending, done));
        Task<List<String>> awaiter = loop.spawn(() -> Async.await(all));
        loop.callLater(Duration.ofMillis(1), awaiter::cancel);
        assertThrows(CancellationException.class, () -> runWithWatchdog(loop, awaiter));
        assertThrows(CancellationException.class, () -> runWithWatchdog(loop, sleeper));
        assertTrue(pending.isCancelled());
        assertEquals("done", done.result());

        // A child cancelled on its own cancels the aggregate, not its siblings (asyncio's gather).
        Promise<String> x = loop.newPromise();
        Promise<String> y = loop.newPromise();
        LoopFuture<List<String>> both = LoopFuture.all(loop, List.of(x, y));
        x.cancel();
        runTask(loop, () -> {
            Async.yieldNow();
            return null;
        });
        assertTrue(both.isCancelled());
        assertFalse(y.isDone(), "a sibling keeps running");
    }

    @Test
    void anAwaitedTaskThatSwallowsTheCancelDecidesWhatTheAwaiterSees() {
        Loop loop = open();
        Task<String> swallows = loop.spawn(() -> {
            try {
                Async.sleep(Duration.ofHours(1));
                return "slept";
            } catch (CancellationException e) {
                Async.sleep(Duration.ofMillis(2)); // cleanup, then a value anyway
                return "value despite the cancel";
            }
        });
        Task<String> fails = loop.spawn(() -> {
            try {
                Async.sleep(Duration.ofHours(1));
                return "slept";
            } catch (CancellationException e) {
                throw new IOException("failed while being cancelled");
            }
        });
        Task<String> awaiter = loop.spawn(() -> {
            String v = Async.await(swallows);
            String afterward;
            try {
                Async.await(fails, IOException.class);
                afterward = "no failure";
            } catch (IOException e) {
                afterward = e.getMessage();
            }
            Async.sleep(Duration.ofMillis(1)); // not cancelled: it goes on
            return v + " / " + afterward + " / cancelling=" + Async.currentTask().cancelling();
        });
        loop.callLater(Duration.ofMillis(1), awaiter::cancel);
        loop.callLater(Duration.ofMillis(5), awaiter::cancel);
        assertEquals("value despite the cancel / failed while being cancelled / cancelling=2",
                runWithWatchdog(loop, awaiter));
        assertFalse(awaiter.isCancelled());
    }

    @Test
    void aTimeoutAroundATaskThatSwallowsTheCancelReturnsItsValue() {
        Loop loop = open();
        String r = runWithWatchdog(loop, loop.spawn(() -> {
            Task<String> inner = loop.spawn(() -> {
                try {
                    Async.sleep(Duration.ofHours(1));
                    return "slept";
                } catch (CancellationException e) {
                    Async.sleep(Duration.ofMillis(2));
                    return "late value";
                }
            });
            String v = Async.timeout(Duration.ofMillis(5), () -> Async.await(inner));
            Async.sleep(Duration.ofMillis(1)); // the timeout's cancel is withdrawn: nothing pending
            return v + " at " + millis(loop) + ", cancelling=" + Async.currentTask().cancelling();
        }));
        assertEquals("late value at 8, cancelling=0", r);
    }

    // ------------------------------------------------------------------ timeouts

    @Test
    void aTimeoutCancelsTheBodyAndThrowsTimeoutException() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        String r = runTask(loop, () -> {
            try {
                Async.timeout(Duration.ofMillis(5), () -> {
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        log.add("body finally at " + millis(loop));
                    }
                    return null;
                });
                return "no timeout";
            } catch (TimeoutException e) {
                assertInstanceOf(CancellationException.class, e.getCause());
                return "timed out, cancelling=" + Async.currentTask().cancelling();
            }
        });
        assertEquals("timed out, cancelling=0", r);
        assertEquals(List.of("body finally at 5"), log);
    }

    @Test
    void aTimeoutThatDoesNotExpireReturnsTheValue() throws Exception {
        Loop loop = open();
        assertEquals("fast", runTask(loop, () -> Async.timeout(Duration.ofSeconds(1), () -> {
            Async.sleep(Duration.ofMillis(1));
            return "fast";
        })));
    }

    @Test
    void aTimeoutCanBeRescheduledWhileItRuns() {
        Loop loop = open();
        String r = runTask(loop, () -> Async.timeout(Duration.ofMillis(5), t -> {
            Async.sleep(Duration.ofMillis(3));
            t.reschedule(Duration.ofMillis(10));
            Async.sleep(Duration.ofMillis(8)); // past the first deadline, before the new one
            return "made it at " + millis(loop) + ", expired=" + t.expired();
        }));
        assertEquals("made it at 11, expired=false", r);
    }

    @Test
    void nestedTimeoutsEachClaimOnlyTheirOwnCancellation() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            try {
                Async.timeout(Duration.ofMillis(10), () -> {
                    try {
                        Async.timeout(Duration.ofMillis(100), () -> {
                            Async.sleep(Duration.ofHours(1));
                            return null;
                        });
                    } catch (TimeoutException inner) {
                        log.add("inner claimed the outer's timeout");
                    }
                    return null;
                });
            } catch (TimeoutException outer) {
                log.add("outer at " + millis(loop));
            }
            log.add("cancelling=" + Async.currentTask().cancelling());
            return null;
        });
        assertEquals(List.of("outer at 10", "cancelling=0"), log);
    }

    @Test
    void aRealCancelDuringATimeoutIsNotTurnedIntoATimeout() {
        Loop loop = open();
        Task<?> t = loop.spawn(() -> Async.timeout(Duration.ofMillis(100), () -> {
            Async.sleep(Duration.ofHours(1));
            return null;
        }));
        loop.callLater(Duration.ofMillis(1), t::cancel);
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
        assertEquals(1, t.cancelling());
    }

    @Test
    void zeroAndNegativeTimeoutsExpireAtTheBodysFirstSuspension() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        runWithWatchdog(loop, loop.spawn(() -> {
            for (Duration d : List.of(Duration.ZERO, Duration.ofMillis(-5))) {
                try {
                    Async.timeout(d, () -> {
                        log.add("body runs up to its first suspension");
                        Promise<String> soon = loop.newPromise();
                        loop.callSoon(() -> soon.complete("soon"));
                        return Async.await(soon);
                    });
                    log.add(d + ": no timeout");
                } catch (TimeoutException e) {
                    log.add(d + ": timed out at " + millis(loop));
                }
            }
            log.add("without a suspension: " + Async.timeout(Duration.ZERO, () -> "the value"));
            Async.yieldNow(); // nothing of the expired timeout is left pending
            try {
                Async.timeout(Duration.ofHours(1), t -> {
                    t.reschedule(Duration.ZERO);
                    Async.yieldNow();
                    return null;
                });
            } catch (TimeoutException e) {
                log.add("rescheduled to zero: timed out");
            }
            log.add("cancelling=" + Async.currentTask().cancelling());
            return null;
        }));
        assertEquals(List.of("body runs up to its first suspension", "PT0S: timed out at 0",
                "body runs up to its first suspension", "PT-0.005S: timed out at 0",
                "without a suspension: the value", "rescheduled to zero: timed out", "cancelling=0"), log);
    }

    // ------------------------------------------------------------------ task groups

    @Test
    void aTaskGroupJoinsEveryChildIncludingOnesSpawnedWhileJoining() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    Async.sleep(Duration.ofMillis(5));
                    g.spawn(() -> {
                        Async.sleep(Duration.ofMillis(5));
                        log.add("late child at " + millis(loop));
                        return null;
                    });
                    return null;
                });
                g.join();
                log.add("joined at " + millis(loop));
                assertThrows(IllegalStateException.class, () -> g.spawn(() -> null), "spawning into a finished group");
            }
            return null;
        });
        assertEquals(List.of("late child at 10", "joined at 10"), log);
    }

    @Test
    void aTaskGroupsFirstFailureCancelsSiblingsAndJoinThrowsEveryFailure() {
        Loop loop = open();
        IllegalStateException a = new IllegalStateException("a");
        IOException b = new IOException("b");
        List<String> log = new ArrayList<>();
        TaskGroupException e = assertThrows(TaskGroupException.class, () -> runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    Async.sleep(Duration.ofMillis(1));
                    throw a;
                });
                g.spawn(() -> {
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        log.add("sibling cancelled at " + millis(loop));
                        throw b; // fails while being cancelled: also reported
                    }
                });
                g.spawn(() -> {
                    Async.sleep(Duration.ofHours(1));
                    return null;
                });
                g.join();
            }
            return null;
        }));
        assertEquals(List.of(a, b), e.failures());
        assertSame(a, e.getCause());
        assertEquals(List.of("sibling cancelled at 1"), log);
    }

    @Test
    void leavingATaskGroupWithoutJoiningCancelsAndAwaitsTheChildren() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        assertThrows(IllegalArgumentException.class, () -> runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        Async.sleep(Duration.ofMillis(2)); // slow cleanup is waited for
                        log.add("child ended at " + millis(loop));
                    }
                    return null;
                });
                Async.sleep(Duration.ofMillis(1));
                throw new IllegalArgumentException("body failed");
            }
        }));
        assertEquals(List.of("child ended at 3"), log);
    }

    @Test
    void taskGroupRunInterruptsTheBodyWhenAChildFails() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        IOException boom = new IOException("boom");
        TaskGroupException e = assertThrows(TaskGroupException.class, () -> runTask(loop, () -> {
            try {
                return TaskGroup.run(g -> {
                    g.spawn(() -> {
                        Async.sleep(Duration.ofMillis(2));
                        throw boom;
                    });
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        log.add("body interrupted at " + millis(loop));
                    }
                    return "no";
                });
            } finally {
                log.add("cancelling=" + Async.currentTask().cancelling());
            }
        }));
        assertEquals(List.of(boom), e.failures());
        assertEquals(List.of("body interrupted at 2", "cancelling=0"), log);
    }

    @Test
    void taskGroupRunPassesAnOutsideCancelThrough() {
        Loop loop = open();
        Task<?> t = loop.spawn(() -> TaskGroup.run(g -> {
            g.spawn(() -> {
                Async.sleep(Duration.ofHours(1));
                return null;
            });
            Async.sleep(Duration.ofHours(1));
            return null;
        }));
        loop.callLater(Duration.ofMillis(1), t::cancel);
        assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
        assertEquals(1, t.cancelling());
    }

    @Test
    void leavingATaskGroupBlockAttachesEveryChildFailureToTheBodysException() {
        Loop loop = open();
        IOException early = new IOException("failed before the body threw");
        IOException whileCancelled = new IOException("failed while being cancelled");
        IllegalArgumentException bodyError = new IllegalArgumentException("body failed");
        Throwable thrown = assertThrows(IllegalArgumentException.class, () -> runTask(loop, () -> {
            try (var g = TaskGroup.open()) {
                g.spawn(() -> {
                    Async.sleep(Duration.ofMillis(1));
                    throw early;
                });
                g.spawn(() -> {
                    try {
                        Async.sleep(Duration.ofHours(1));
                    } finally {
                        throw whileCancelled;
                    }
                });
                Async.sleep(Duration.ofMillis(5));
                throw bodyError;
            }
        }));
        assertSame(bodyError, thrown);
        assertEquals(1, thrown.getSuppressed().length, () -> List.of(thrown.getSuppressed()).toString());
        TaskGroupException group = assertInstanceOf(TaskGroupException.class, thrown.getSuppressed()[0]);
        assertEquals(List.of(early, whileCancelled), group.failures());
    }

    @Test
    void aShieldedFailureWhoseAwaitersWereAllCancelledIsReportedOnce() {
        Loop loop = open();
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        List<String> messages = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((l, msg, err, src) -> {
            reported.add(err);
            messages.add(msg);
        });
        Task<String> work = loop.spawn(() -> {
            Async.sleep(Duration.ofMillis(5));
            throw new IOException("nobody is left to see this");
        });
        LoopFuture<String> shield = Async.shield(work);
        Task<?> a = loop.spawn(() -> Async.await(shield));
        Task<?> b = loop.spawn(() -> Async.await(shield));
        loop.callLater(Duration.ofMillis(1), a::cancel);
        assertThrows(CancellationException.class, () -> runWithWatchdog(loop, a));
        assertThrows(CancellationException.class, () -> runWithWatchdog(loop, b));
        assertThrows(IOException.class, () -> runWithWatchdog(loop, work));
        runTask(loop, () -> null);
        loop.close(); // and not a second time as a task exception nobody retrieved
        assertEquals(1, reported.size(), messages::toString);
        assertEquals("nobody is left to see this", reported.get(0).getMessage());
        assertTrue(messages.get(0).contains("shield"), messages.get(0));
    }

    @Test
    void aTaskGroupCanOnlyBeOpenedInATask() {
        IllegalStateException e = assertThrows(IllegalStateException.class, TaskGroup::open);
        assertTrue(e.getMessage().contains("outside a task"), e.getMessage());
    }

    // ------------------------------------------------------------------ misuse and edges

    @Test
    void awaitInACallbackIsAClearError() {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        AtomicReference<Throwable> err = new AtomicReference<>();
        loop.callSoon(() -> {
            try {
                Async.await(p);
            } catch (IllegalStateException e) {
                err.set(e);
            }
            loop.stop();
        });
        loop.runForever();
        assertTrue(err.get().getMessage().contains("deadlock"), err.get().getMessage());
        assertTrue(err.get().getMessage().contains("onDone"), err.get().getMessage());
    }

    @Test
    void awaitFromAForeignThreadBlocksThatThread() throws Exception {
        Loop loop = open();
        Task<String> t = loop.spawn(() -> {
            Async.sleep(Duration.ofMillis(5));
            return "v";
        });
        CompletableFuture<String> seen = new CompletableFuture<>();
        Thread th = new Thread(() -> seen.complete(Async.await(t)));
        th.start();
        loop.runUntilComplete(t);
        assertEquals("v", seen.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aTaskCannotAwaitItself() {
        Loop loop = open();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> runTask(loop, () -> Async.await(Async.currentTask())));
        assertTrue(e.getMessage().contains("awaits itself"), e.getMessage());
    }

    @Test
    void aFutureOfAnotherLoopIsMarshalled() throws Exception {
        Loop other = open();
        Loop loop = open();
        Promise<String> foreign = other.newPromise();
        Thread otherThread = new Thread(() -> other.runUntilComplete(foreign));
        otherThread.start();
        Task<String> t = loop.spawn(() -> {
            Async.yieldNow();
            new Thread(() -> foreign.complete("from the other loop")).start();
            return Async.await(foreign) + " on " + (Loop.current() == loop ? "ours" : "theirs");
        });
        assertEquals("from the other loop on ours", loop.runUntilComplete(t));
        otherThread.join(10_000);
    }

    @Test
    void aTaskAwaitingAFutureOfALoopThatNeverRunsIsResumedWhenAnotherThreadCompletesIt() {
        Loop other = open(); // never runs
        Loop loop = open();
        Promise<String> foreign = other.newPromise();
        Task<String> t = loop.spawn(() -> Async.await(foreign) + " on " + (Loop.current() == loop ? "ours" : "theirs"));
        loop.callSoon(() -> new Thread(() -> foreign.complete("completed elsewhere")).start()); // after t suspends
        assertEquals("completed elsewhere on ours", runWithWatchdog(loop, t));
    }

    @Test
    void aBlockingAwaitOnAForeignThreadDoesNotNeedTheFuturesLoopToRun() throws Exception {
        Loop loop = open(); // never runs: as after a runUntilComplete that returned meanwhile
        Promise<String> p = loop.newPromise();
        CompletableFuture<String> seen = new CompletableFuture<>();
        Thread waiter = new Thread(() -> seen.complete(Async.await(p)));
        waiter.start();
        while (waiter.getState() != Thread.State.WAITING && waiter.isAlive()) {
            Thread.sleep(1); // registered and blocked
        }
        p.complete("v");
        assertEquals("v", seen.get(10, TimeUnit.SECONDS));
    }

    /** runUntilComplete, but the loop is stopped (and the call throws) if {@code f} hangs for 10 s. */
    private static <T> T runWithWatchdog(Loop loop, LoopFuture<T> f) {
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(10_000);
                loop.stop();
            } catch (InterruptedException finished) {
                // f completed in time
            }
        });
        try {
            return loop.runUntilComplete(f);
        } finally {
            watchdog.interrupt();
        }
    }

    @Test
    void aCompletionStageCanBeAwaited() {
        Loop loop = open();
        CompletableFuture<String> cf = new CompletableFuture<>();
        Task<String> t = loop.spawn(() -> Async.await(cf));
        loop.callLater(Duration.ofMillis(1), () -> new Thread(() -> cf.complete("cf")).start());
        assertEquals("cf", loop.runUntilComplete(t));
    }

    @Test
    void closeCancelsSuspendedTasksAndRunsTheirFinallyBlocks() {
        Loop loop = open();
        List<String> log = new ArrayList<>();
        Promise<String> never = loop.newPromise();
        for (int i = 0; i < 3; i++) {
            int n = i;
            loop.spawn(() -> {
                try {
                    Async.await(never);
                } finally {
                    log.add("finally " + n);
                }
                return null;
            });
        }
        Task<?> sleeper = loop.spawn(() -> {
            try {
                Async.sleep(Duration.ofHours(1));
            } finally {
                Async.sleep(Duration.ofMillis(1)); // cannot fire while closing: cancelled again
                log.add("never");
            }
            return null;
        });
        loop.spawn(() -> {
            Async.yieldNow();
            loop.stop();
            return null;
        });
        loop.runForever();
        loop.close();
        assertEquals(List.of("finally 0", "finally 1", "finally 2"), log.stream().sorted().toList());
        assertTrue(sleeper.isCancelled());
        assertEquals(0, loop.diagnostics().liveTasks());
    }

    @Test
    void aFailureNobodyRetrievedIsReportedAtClose() {
        Loop loop = open();
        List<String> reports = new ArrayList<>();
        loop.setExceptionHandler((l, msg, err, src) -> reports.add(msg + ": " + err.getMessage()));
        Task<?> retrieved = loop.spawn(() -> {
            throw new IOException("looked at");
        });
        loop.spawn(() -> {
            throw new IOException("ignored");
        });
        assertThrows(IOException.class, () -> loop.runUntilComplete(retrieved));
        loop.close();
        assertEquals(1, reports.size(), reports.toString());
        assertTrue(reports.get(0).contains("never retrieved") && reports.get(0).endsWith("ignored"), reports.toString());
    }

    @Test
    void awaitingInAClassInitializerIsAClearErrorNotAHang() throws Exception {
        Loop loop = open();
        runTask(loop, () -> null); // the mechanism is chosen by the first task
        if (!"continuation".equals(loop.diagnostics().taskMechanism())) {
            return; // a fallback task is a real thread: it can block anywhere
        }
        // A class is initialized once per loader: a loader of its own per run, so every cell of
        // the matrix sees the initializer run (and fail) for the first time.
        Class<?> fresh = freshCopy(SleepsInClinit.class);
        Throwable e = assertThrows(Throwable.class, () -> runTask(loop, () -> fresh.getField("VALUE").getInt(null)));
        Throwable cause = e instanceof ExceptionInInitializerError ? e.getCause() : e;
        assertInstanceOf(IllegalStateException.class, cause);
        assertTrue(cause.getMessage().contains("class initializer"), cause.getMessage());
    }

    /** A copy of {@code c} defined by a new class loader, so its static initializer runs again. */
    private static Class<?> freshCopy(Class<?> c) throws Exception {
        String resource = c.getName().replace('.', '/') + ".class";
        byte[] bytes;
        try (var in = c.getClassLoader().getResourceAsStream(resource)) {
            bytes = in.readAllBytes();
        }
        ClassLoader loader = new ClassLoader(c.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.equals(c.getName())) {
                    synchronized (getClassLoadingLock(name)) {
                        Class<?> done = findLoadedClass(name);
                        return done != null ? done : defineClass(name, bytes, 0, bytes.length);
                    }
                }
                return super.loadClass(name, resolve);
            }
        };
        return Class.forName(c.getName(), false, loader);
    }

    public static final class SleepsInClinit {
        public static final int VALUE = sleepThenOne();

        private static int sleepThenOne() {
            Async.sleep(Duration.ofMillis(1));
            return 1;
        }
    }

    @Test
    void taskLocalsBelongToTheTaskAndAreInheritedAtSpawn() {
        Loop loop = open();
        TaskLocal<String> user = TaskLocal.withInitial("user", "nobody");
        List<String> log = new ArrayList<>();
        runTask(loop, () -> {
            user.set("alice");
            Task<?> child = loop.spawn(() -> {
                log.add("child sees " + user.get());
                user.set("bob");
                Async.yieldNow();
                return null;
            });
            Task<?> stranger = loop.spawn(() -> {
                Async.yieldNow();
                log.add("sibling sees " + user.get());
                return null;
            });
            Async.await(child);
            Async.await(stranger);
            log.add("parent still sees " + user.get());
            return null;
        });
        loop.callSoon(() -> log.add("callback sees " + user.get()));
        runTask(loop, () -> null);
        assertEquals(List.of("child sees alice", "sibling sees alice", "parent still sees alice",
                "callback sees nobody"), log);
    }

    @Test
    void blockingWorkIsOffloadedAndCompletedOnTheLoop() {
        Loop loop = open();
        String r = runTask(loop, () -> {
            Thread loopThread = Thread.currentThread();
            String where = Async.runBlocking(() -> Thread.currentThread() == loopThread ? "loop" : "elsewhere");
            assertTrue(loop.inLoop());
            return where;
        });
        assertEquals("elsewhere", r);
    }

    // ------------------------------------------------------------------ checked exceptions, combinators, reasons

    @Test
    void aCheckedExceptionIsCaughtByItsTypeAroundAnAwaitThatDeclaresIt() {
        Loop loop = open();
        SocketTimeoutException slow = new SocketTimeoutException("read timed out");
        TimeoutException undeclared = new TimeoutException("not an IOException");
        IllegalStateException unchecked = new IllegalStateException("unchecked");
        String r = runTask(loop, () -> {
            List<String> seen = new ArrayList<>();
            Promise<String> p = loop.newPromise();
            loop.callSoon(() -> p.fail(slow));
            try {
                Async.await(p, IOException.class);
            } catch (SocketTimeoutException e) {
                seen.add(e == slow ? "caught the very SocketTimeoutException" : "another object");
            }
            CompletableFuture<String> stage = CompletableFuture.failedFuture(slow);
            try {
                Async.await(stage, IOException.class);
            } catch (SocketTimeoutException e) {
                seen.add(e == slow ? "and from a stage" : "another object");
            }
            Promise<String> q = loop.newPromise();
            q.fail(undeclared);
            CompletionException wrapped = assertThrows(CompletionException.class, () -> Async.await(q, IOException.class));
            seen.add(wrapped.getCause() == undeclared ? "an undeclared checked one is wrapped" : "not wrapped");
            Promise<String> u = loop.newPromise();
            u.fail(unchecked);
            seen.add(assertThrows(IllegalStateException.class, () -> Async.await(u, IOException.class)) == unchecked
                    ? "an unchecked one is itself" : "not itself");
            Promise<String> c = loop.newPromise();
            c.cancel();
            assertThrows(CancellationException.class, () -> Async.await(c, IOException.class));
            return String.join(", ", seen);
        });
        assertEquals("caught the very SocketTimeoutException, and from a stage, an undeclared checked one is wrapped, "
                + "an unchecked one is itself", r);
    }

    @Test
    void mapFlatMapAndRecoverRunOnTheLoopAndPassFailuresAndCancellationsOn() {
        Loop loop = open();
        List<String> log = new CopyOnWriteArrayList<>();
        String r = runTask(loop, () -> {
            Promise<Integer> p = loop.newPromise();
            LoopFuture<String> mapped = p.map(v -> {
                log.add("map on the loop: " + loop.inLoop());
                return "v=" + v;
            });
            LoopFuture<String> composed = mapped.flatMap(s -> loop.spawn(() -> {
                Async.sleep(Duration.ofMillis(1));
                return s + ", composed";
            }));
            new Thread(() -> p.complete(42)).start(); // completed elsewhere, callbacks on the loop
            String value = Async.await(composed);

            Promise<Integer> failing = loop.newPromise();
            IOException boom = new IOException("boom");
            failing.fail(boom);
            assertEquals(-1, Async.await(failing.map(v -> v + 1).recover(e -> e == boom ? -1 : -2)),
                    "map passes the failure on, recover gets the very exception");
            Promise<Integer> source = loop.newPromise();
            LoopFuture<Integer> fnThrows = source.map(v -> {
                throw new IllegalArgumentException("fn failed");
            });
            source.complete(1);
            assertEquals("fn failed", assertThrows(IllegalArgumentException.class, () -> Async.await(fnThrows)).getMessage());
            Promise<Integer> cancelled = loop.newPromise();
            LoopFuture<Integer> recovered = cancelled.recover(e -> 0);
            cancelled.cancel();
            assertThrows(CancellationException.class, () -> Async.await(recovered), "cancellation is not recovered");

            Promise<Integer> upstream = loop.newPromise();
            LoopFuture<Integer> derived = upstream.map(v -> v);
            Task<Integer> awaiter = loop.spawn(() -> Async.await(derived));
            Async.yieldNow();
            awaiter.cancel();
            assertThrows(CancellationException.class, () -> Async.await(awaiter));
            Async.yieldNow();
            log.add("cancelling what awaits a mapped future cancels its source: " + upstream.isCancelled());
            return value;
        });
        assertEquals("v=42, composed", r);
        assertEquals(List.of("map on the loop: true", "cancelling what awaits a mapped future cancels its source: true"), log);
    }

    @Test
    void aCancelReasonReachesTheCancellationException() {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        assertTrue(p.cancel("no longer needed"));
        assertTrue(assertThrows(CancellationException.class, p::result).getMessage().contains("no longer needed"));
        assertTrue(assertThrows(CancellationException.class, p::exception).getMessage().contains("no longer needed"));

        Promise<String> awaited = loop.newPromise();
        List<String> inside = new ArrayList<>();
        Task<String> t = loop.spawn(() -> {
            try {
                return Async.await(awaited);
            } catch (CancellationException e) {
                inside.add(e.getMessage());
                throw e;
            }
        });
        loop.callLater(Duration.ofMillis(1), () -> t.cancel("shutting down"));
        String outside = assertThrows(CancellationException.class, () -> runWithWatchdog(loop, t)).getMessage();
        assertEquals(1, inside.size());
        assertTrue(inside.get(0).contains("shutting down") && inside.get(0).contains(t.name()), inside.get(0));
        assertTrue(outside.contains("shutting down"), outside);
        assertTrue(assertThrows(CancellationException.class, awaited::result).getMessage().contains("shutting down"),
                "the reason is handed on with the cancel");
    }

    @Test
    void debugModeLogsASlowTaskStepWithTheTasksName() {
        Loop loop = open(options().withClock(ManualClock.autoAdvancing()).withDebug(true)
                .withSlowCallbackThreshold(Duration.ZERO));
        try (LogCapture log = LogCapture.start("dev.loop")) {
            Promise<String> p = loop.newPromise();
            Task<String> t = loop.spawn(() -> {
                Async.yieldNow();
                return Async.await(p); // resumed from p's callbacks, not from a step of its own
            });
            loop.callLater(Duration.ofMillis(1), () -> p.complete("v"));
            assertEquals("v", runWithWatchdog(loop, t));
            String text = log.text();
            long named = text.lines().filter(l -> l.contains("executing " + t.name())).count();
            assertTrue(named >= 3, "every turn of the task (start, after the yield, after the await) is named: " + text);
            assertFalse(text.contains("LoopTask$$Lambda"), "a step is logged by the task's name, not a lambda's class: " + text);
        }
    }

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

    @Test
    void spawnAndCompleteManyTasksQuickly() {
        Loop loop = open();
        int n = 20_000;
        AtomicInteger sum = new AtomicInteger();
        runTask(loop, () -> {
            List<Task<Integer>> all = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int v = i;
                all.add(loop.spawn(() -> {
                    Async.yieldNow();
                    return v;
                }));
            }
            for (Task<Integer> t : all) {
                sum.addAndGet(Async.await(t));
            }
            return null;
        });
        assertEquals(n * (n - 1) / 2, sum.get());
        assertNotSame(null, loop);
    }
}
