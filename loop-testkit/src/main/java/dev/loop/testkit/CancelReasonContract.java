package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.Promise;
import dev.loop.Task;
import dev.loop.TaskBody;
import dev.loop.TaskGroup;
import dev.loop.sync.AsyncCondition;
import dev.loop.sync.AsyncEvent;
import dev.loop.sync.AsyncLock;
import dev.loop.sync.AsyncQueue;
import dev.loop.sync.AsyncSemaphore;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reason given to {@link Task#cancel(String)} reaches the {@link CancellationException} the
 * task sees, whatever it is suspended in: one test per suspension point, run on every backend x
 * timer strategy x task mechanism of the {@link Matrix}. Each task is cancelled while it waits
 * there; the exception it catches must carry the task's name and the reason, and so must the one
 * its awaiters get.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class CancelReasonContract {
    private static final String REASON = "the operator said stop";

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    private Loop open() {
        LoopOptions o = cell.options().withClock(ManualClock.autoAdvancing());
        return loops.open(o);
    }

    /**
     * Spawns {@code waitThere} as a task, cancels it with {@link #REASON} once it is suspended
     * (after {@code settle}, which lets it reach its wait), and checks the exception inside the
     * task and the one its awaiters get.
     */
    private void assertReasonArrives(Loop loop, TaskBody<?> waitThere) {
        AtomicReference<Throwable> inside = new AtomicReference<>();
        Task<Object> t = loop.spawn(() -> {
            try {
                waitThere.call();
                return "the wait ended without the cancel";
            } catch (Throwable e) {
                inside.set(e);
                throw e;
            }
        });
        loop.spawn(() -> {
            for (int i = 0; i < 5; i++) {
                Async.yieldNow(); // let the task reach its suspension point
            }
            t.cancel(REASON);
            return null;
        });
        Throwable outside = Runs.awaitFailure(loop, t);
        CancellationException in = assertInstanceOf(CancellationException.class, inside.get(),
                "the task sees a cancellation: " + inside.get());
        assertTrue(in.getMessage() != null && in.getMessage().contains(REASON) && in.getMessage().contains(t.name()),
                "the cancellation inside the task names it and carries the reason: " + in.getMessage());
        assertInstanceOf(CancellationException.class, outside);
        assertTrue(outside.getMessage().contains(REASON), "awaiters see the reason too: " + outside.getMessage());
        assertTrue(t.isCancelled());
    }

    @Test
    void awaitOfAPromise() {
        Loop loop = open();
        Promise<String> never = loop.newPromise();
        assertReasonArrives(loop, () -> Async.await(never));
    }

    @Test
    void awaitOfAnotherTask() {
        Loop loop = open();
        Task<Object> other = loop.spawn(() -> {
            Async.sleep(Duration.ofHours(1));
            return null;
        });
        assertReasonArrives(loop, () -> Async.await(other));
    }

    @Test
    void awaitOfACompletionStage() {
        Loop loop = open();
        java.util.concurrent.CompletableFuture<String> never = new java.util.concurrent.CompletableFuture<>();
        assertReasonArrives(loop, () -> Async.await(never));
    }

    @Test
    void sleep() {
        Loop loop = open();
        assertReasonArrives(loop, () -> {
            Async.sleep(Duration.ofHours(1));
            return null;
        });
    }

    @Test
    void taskGroupJoin() {
        Loop loop = open();
        assertReasonArrives(loop, () -> {
            try (TaskGroup g = TaskGroup.open()) {
                g.spawn(() -> {
                    Async.sleep(Duration.ofHours(1));
                    return null;
                });
                g.join();
            }
            return null;
        });
    }

    @Test
    void taskGroupRun() {
        Loop loop = open();
        assertReasonArrives(loop, () -> TaskGroup.run(g -> {
            g.spawn(() -> {
                Async.sleep(Duration.ofHours(1));
                return null;
            });
            return null;
        }));
    }

    @Test
    void taskGroupCloseAfterTheBodyThrew() {
        // The body fails, close() cancels the children and waits for them; the owner's cancel
        // arriving during that wait is delivered at the next suspension, with its reason.
        Loop loop = open();
        assertReasonArrives(loop, () -> {
            try {
                try (TaskGroup g = TaskGroup.open()) {
                    g.spawn(() -> {
                        try {
                            Async.sleep(Duration.ofHours(1));
                        } finally {
                            for (int i = 0; i < 20; i++) {
                                try {
                                    Async.yieldNow(); // a slow cleanup, during which the owner is cancelled
                                } catch (CancellationException ignored) {
                                    // the child's own cancel: it cleans up regardless
                                }
                            }
                        }
                        return null;
                    });
                    throw new IllegalStateException("body failed");
                }
            } catch (IllegalStateException expected) {
                Async.sleep(Duration.ofHours(1)); // the re-armed cancel comes here
            }
            return null;
        });
    }

    @Test
    void timeout() {
        Loop loop = open();
        Promise<String> never = loop.newPromise();
        assertReasonArrives(loop, () -> Async.timeout(Duration.ofHours(1), () -> Async.await(never)));
    }

    @Test
    void queueTake() {
        Loop loop = open();
        AsyncQueue<String> q = new AsyncQueue<>();
        assertReasonArrives(loop, q::take);
    }

    @Test
    void queuePut() {
        Loop loop = open();
        AsyncQueue<String> q = new AsyncQueue<>(1);
        assertReasonArrives(loop, () -> {
            q.put("fills it");
            q.put("waits");
            return null;
        });
    }

    @Test
    void lock() {
        Loop loop = open();
        AsyncLock lock = new AsyncLock();
        loop.spawn(() -> {
            lock.lock(); // held for good
            return null;
        });
        assertReasonArrives(loop, () -> {
            lock.lock();
            return null;
        });
    }

    @Test
    void event() {
        Loop loop = open();
        AsyncEvent e = new AsyncEvent();
        assertReasonArrives(loop, () -> {
            e.await();
            return null;
        });
    }

    @Test
    void semaphore() {
        Loop loop = open();
        AsyncSemaphore s = new AsyncSemaphore(0);
        assertReasonArrives(loop, () -> {
            s.acquire();
            return null;
        });
    }

    @Test
    void condition() {
        Loop loop = open();
        AsyncCondition c = new AsyncCondition();
        assertReasonArrives(loop, () -> {
            c.lock().lock();
            try {
                c.await();
            } finally {
                c.lock().unlock();
            }
            return null;
        });
    }

    @Test
    void shield() {
        Loop loop = open();
        Promise<String> inner = loop.newPromise();
        assertReasonArrives(loop, () -> Async.await(Async.shield(inner)));
        assertTrue(!inner.isDone(), "the shield kept the cancel from what it guards");
    }

    @Test
    void runBlocking() {
        Loop loop = open();
        CountDownLatch never = new CountDownLatch(1);
        assertReasonArrives(loop, () -> Async.runBlocking(() -> {
            never.await(); // interrupted by the cancel
            return null;
        }));
    }

    @Test
    void yieldNowOfATaskThatCancelledItself() {
        Loop loop = open();
        Task<Object> t = loop.spawn(() -> {
            Async.currentTask().cancel(REASON);
            Async.yieldNow();
            return null;
        });
        Throwable outside = Runs.awaitFailure(loop, t);
        assertEquals(CancellationException.class, outside.getClass());
        assertTrue(outside.getMessage().contains(REASON), outside.getMessage());
        assertThrows(CancellationException.class, t::result);
    }
}
