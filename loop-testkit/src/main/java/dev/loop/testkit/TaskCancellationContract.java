package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.Task;
import dev.loop.TaskGroup;
import dev.loop.TaskGroupException;
import dev.loop.sync.AsyncQueue;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Cancelling tasks: where the cancellation is delivered, what awaiters and awaited futures see,
 * shields, tasks that catch or swallow it, and the reason it carries.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskCancellationContract extends TaskSuite {

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
}
