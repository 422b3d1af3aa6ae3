package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.ManualClock;
import dev.loop.Promise;
import dev.loop.Task;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What tasks leave to the loop when nobody awaits them: closing a loop cancels suspended tasks, a
 * failure nobody retrieved is reported once, and debug mode names a slow task step.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tasks")
public class TaskReportingContract extends TaskSuite {

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
}
