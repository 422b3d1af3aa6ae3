package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The loop and its futures are closed families: no class outside this library can pose as one
 * (the compiler refuses a decorator), so the layers above never need to downcast, and the future
 * contract itself carries what they needed the downcast for (cancelling with a reason, reading it).
 */
class SealedContractTest {

    private static Loop open() {
        return Loops.open(LoopOptions.defaults().withBackend("park"));
    }

    private static Set<Class<?>> permitted(Class<?> c) {
        assertTrue(c.isSealed(), c + " is sealed");
        return Arrays.stream(c.getPermittedSubclasses()).collect(Collectors.toSet());
    }

    @Test
    void loopAndFuturesAreSealedToTheLibrarysOwnImplementations() {
        assertEquals(Set.of(DefaultLoop.class), permitted(Loop.class));
        assertEquals(Set.of(Promise.class, Task.class), permitted(LoopFuture.class));
        assertEquals(Set.of(DefaultPromise.class), permitted(Promise.class));
        assertEquals(Set.of(LoopTask.class), permitted(Task.class));
        assertEquals(Set.of(LoopTask.class), permitted(DefaultPromise.class));
        assertTrue(Modifier.isFinal(LoopTask.class.getModifiers()));
        assertTrue(Modifier.isFinal(DefaultLoop.class.getModifiers()));
        for (Class<?> impl : List.of(DefaultLoop.class, DefaultPromise.class, LoopTask.class)) {
            assertFalse(Modifier.isPublic(impl.getModifiers()), impl + " stays out of the API");
        }
    }

    @Test
    void anyFutureCanBeCancelledWithAReasonAndTellsItBack() {
        try (Loop loop = open()) {
            Promise<String> p = loop.newPromise();
            assertNull(p.cancelReason(), "pending");
            LoopFuture<String> asRead = p;
            assertTrue(asRead.cancel("not needed"));
            assertEquals("not needed", asRead.cancelReason());
            assertFalse(asRead.cancel("again"), "already done");

            Promise<String> plain = loop.newPromise();
            plain.cancel();
            assertTrue(plain.isCancelled());
            assertNull(plain.cancelReason(), "cancelled without a reason");

            Promise<String> source = loop.newPromise();
            LoopFuture<Integer> mapped = source.map(String::length);
            assertTrue(mapped.cancel("caller gave up"));
            loop.runUntilComplete(loop.spawn(() -> {
                Async.yieldNow();
                return null;
            }));
            assertEquals("caller gave up", source.cancelReason(), "the reason travels upstream with the cancel");
        }
    }

    @Test
    void aTaskSeenAsAFutureIsCancelledThroughTheFutureContract() {
        try (Loop loop = open()) {
            LoopFuture<Object> f = loop.spawn(() -> {
                Async.sleep(Duration.ofHours(1));
                return null;
            });
            loop.callSoon(() -> f.cancel("through LoopFuture"));
            CancellationException e = assertThrows(CancellationException.class, () -> loop.runUntilComplete(f));
            assertTrue(e.getMessage().contains("through LoopFuture"), e.getMessage());
            assertEquals("through LoopFuture", f.cancelReason());
        }
    }

    @Test
    void cancellingTheCompletableFutureOfATaskCancelsTheTask() {
        // toCompletableFuture() promised this for every future, but only promises honoured it.
        try (Loop loop = open()) {
            Task<Object> t = loop.spawn(() -> {
                Async.sleep(Duration.ofHours(1));
                return null;
            });
            CompletableFuture<Object> cf = t.toCompletableFuture();
            loop.callSoon(() -> cf.cancel(false));
            assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
            assertTrue(t.isCancelled());
        }
    }
}
