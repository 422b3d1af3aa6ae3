package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Futures on the loop: callbacks never inline, states and their errors, any value, removable
 * callbacks, one winner among racing completers, {@code CompletableFuture} interop, all and any.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopFutureContract extends LoopSuite {

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
}
