package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.Task;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What may be awaited, and from where: misuse that must be a clear error (a callback, the task
 * itself, a class initializer), futures of other loops and threads, completion stages, checked
 * exceptions by their type, and the combinators.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskAwaitContract extends TaskSuite {

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

    @Test
    void aCompletionStageCanBeAwaited() {
        Loop loop = open();
        CompletableFuture<String> cf = new CompletableFuture<>();
        Task<String> t = loop.spawn(() -> Async.await(cf));
        loop.callLater(Duration.ofMillis(1), () -> new Thread(() -> cf.complete("cf")).start());
        assertEquals("cf", loop.runUntilComplete(t));
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

    // ------------------------------------------------------------------ checked exceptions and combinators

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
}
