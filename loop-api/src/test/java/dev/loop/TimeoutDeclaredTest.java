package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * {@code Async.timeout(delay, X.class, body)}: the body's checked exceptions of type X can be
 * caught by type around the call (the {@code catch (IOException e)} blocks below would not compile
 * against the two-argument form), and come out as the same object.
 */
class TimeoutDeclaredTest {

    /** A checked exception that is not an IOException. */
    static final class QuotaExceeded extends Exception {
        QuotaExceeded(String message) {
            super(message);
        }
    }

    private static Loop open() {
        return Loops.open(LoopOptions.defaults().withBackend("park").withClock(ManualClock.autoAdvancing()));
    }

    private static <T> T inTask(Loop loop, TaskBody<T> body) {
        return loop.runUntilComplete(loop.spawn(body));
    }

    private static String readOrFail(IOException failure) throws IOException {
        Async.sleep(Duration.ofMillis(1));
        if (failure != null) {
            throw failure;
        }
        return "line";
    }

    @Test
    void aDeclaredCheckedExceptionOfTheBodyIsCaughtByTypeAsTheSameObject() {
        try (Loop loop = open()) {
            EOFException eof = new EOFException("peer closed");
            Object caught = inTask(loop, () -> {
                try {
                    return Async.timeout(Duration.ofSeconds(5), IOException.class, () -> readOrFail(eof));
                } catch (IOException e) {
                    return e;
                } catch (TimeoutException e) {
                    return "timed out";
                }
            });
            assertSame(eof, caught);
        }
    }

    @Test
    void theValueAndTheTimeoutComeOutAsWithoutTheType() {
        try (Loop loop = open()) {
            String v = inTask(loop, () -> {
                try {
                    return Async.timeout(Duration.ofSeconds(5), IOException.class, () -> readOrFail(null));
                } catch (IOException | TimeoutException e) {
                    return "failed: " + e;
                }
            });
            assertEquals("line", v);

            Object timedOut = inTask(loop, () -> {
                try {
                    return Async.timeout(Duration.ofMillis(10), IOException.class, t -> {
                        Async.sleep(Duration.ofHours(1));
                        return "slept";
                    });
                } catch (IOException e) {
                    return e;
                } catch (TimeoutException e) {
                    return e;
                }
            });
            TimeoutException te = assertInstanceOf(TimeoutException.class, timedOut);
            assertInstanceOf(CancellationException.class, te.getCause());
        }
    }

    @Test
    void anUndeclaredCheckedExceptionComesWrappedAndUncheckedOnesAsThemselves() {
        try (Loop loop = open()) {
            QuotaExceeded quota = new QuotaExceeded("over quota");
            CompletionException wrapped = assertThrows(CompletionException.class, () -> inTask(loop,
                    () -> Async.timeout(Duration.ofSeconds(5), IOException.class, () -> {
                        Async.sleep(Duration.ofMillis(1));
                        throw quota;
                    })));
            assertSame(quota, wrapped.getCause());

            IllegalStateException ise = new IllegalStateException("bug");
            assertSame(ise, assertThrows(IllegalStateException.class, () -> inTask(loop,
                    () -> Async.timeout(Duration.ofSeconds(5), IOException.class, () -> {
                        throw ise;
                    }))));
        }
    }

    @Test
    void aCancelOfTheTaskFromOutsidePassesThroughWithItsReason() {
        try (Loop loop = open()) {
            Task<Object> t = loop.spawn(() -> Async.timeout(Duration.ofHours(1), IOException.class,
                    () -> Async.await(loop.newPromise())));
            loop.callLater(Duration.ofMillis(1), () -> t.cancel("shutting down"));
            CancellationException c = assertThrows(CancellationException.class, () -> loop.runUntilComplete(t));
            assertTrue(c.getMessage().contains("shutting down"), c.getMessage());
        }
    }
}
