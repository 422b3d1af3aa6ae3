package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.Task;
import dev.loop.TaskLocal;
import dev.loop.sync.AsyncQueue;
import dev.loop.sync.QueueClosedException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every task does: it runs on the requested mechanism, suspends and resumes in loop time,
 * yields, returns its value or its exception, sees its own task-locals, and offloads blocking
 * work; and the seed programs (countdown, producer/consumer, many sleepers).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskBasicsContract extends TaskSuite {

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
        assertEquals(42, runTask(loop, TaskBasicsContract::helperThatSleeps));
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
