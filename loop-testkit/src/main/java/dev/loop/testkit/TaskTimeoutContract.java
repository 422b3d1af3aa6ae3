package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code Async.timeout}: expiry cancels the body and throws {@code TimeoutException}, a deadline
 * can move, nested timeouts claim only their own cancellation, and a real cancel stays one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskTimeoutContract extends TaskSuite {

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
}
