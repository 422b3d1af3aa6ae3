package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Promise;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exceptions and debug mode: a failing callback or exception handler never kills the loop or loses
 * a report, and debug mode names slow callbacks and failures nobody looked at.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopErrorContract extends LoopSuite {

    @Test
    void anExceptionInACallbackGoesToTheHandlerAndTheLoopCarriesOn() {
        Loop loop = open();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Object> sources = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> {
            errors.add(error);
            sources.add(source);
        });
        RuntimeException boom = new RuntimeException("boom");
        Runnable bad = () -> {
            throw boom;
        };
        AtomicInteger after = new AtomicInteger();
        loop.callSoon(bad);
        loop.callSoon(after::incrementAndGet);
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(List.of(boom), errors);
        assertEquals(1, after.get());
        assertTrue(sources.get(0).toString().contains(bad.toString()));
    }

    @Test
    void aFailingExceptionHandlerDoesNotKillTheLoop() {
        Loop loop = open();
        loop.setExceptionHandler((l, m, e, s) -> {
            throw new IllegalStateException("handler broke");
        });
        AtomicInteger after = new AtomicInteger();
        loop.callSoon(() -> {
            throw new RuntimeException("first");
        });
        loop.callSoon(after::incrementAndGet);
        spin(loop);
        assertEquals(1, after.get());
    }

    @Test
    void aThrowingExceptionHandlerLosesNeitherItsFailureNorTheOriginal() {
        Loop loop = open();
        IllegalStateException handlerBroke = new IllegalStateException("handler broke");
        loop.setExceptionHandler((l, m, e, s) -> {
            throw handlerBroke;
        });
        RuntimeException original = new RuntimeException("original");
        try (LogCapture log = LogCapture.start("dev.loop")) {
            loop.callSoon(() -> {
                throw original;
            });
            spin(loop);
            assertEquals(List.of(handlerBroke), log.thrown(), log.text());
            assertEquals(List.of(original), Arrays.asList(handlerBroke.getSuppressed()));
            assertTrue(log.text().contains("exception handler failed"), log.text());
        }
    }

    @Test
    void theLoopsErrorPathNeverThrowsEvenWhenLoggingAndToStringFail() {
        Loop loop = open();
        loop.setExceptionHandler((l, m, e, s) -> {
            throw new IllegalStateException("handler broke");
        });
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.loop");
        java.util.logging.Handler broken = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                throw new IllegalStateException("logging broke");
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(broken);
        try {
            Runnable nasty = new Runnable() {
                @Override
                public void run() {
                    throw new RuntimeException("callback failed");
                }

                @Override
                public String toString() {
                    throw new IllegalStateException("toString broke");
                }
            };
            AtomicInteger after = new AtomicInteger();
            long before = loop.diagnostics().failedReports();
            loop.callSoon(nasty);
            loop.callSoon(after::incrementAndGet);
            spin(loop);
            assertEquals(1, after.get(), "the loop carried on");
            assertEquals(before + 1, loop.diagnostics().failedReports(), "the report that could not be logged is counted");
        } finally {
            jul.removeHandler(broken);
        }
    }

    @Test
    void debugModeLogsSlowCallbacksWithWhereTheyWereScheduled() {
        Loop loop = open(options().withDebug(true).withSlowCallbackThreshold(Duration.ZERO));
        try (LogCapture log = LogCapture.start("dev.loop")) {
            Runnable slow = new Runnable() {
                @Override
                public void run() {
                }

                @Override
                public String toString() {
                    return "the-slow-one";
                }
            };
            loop.callSoon(slow);
            spin(loop);
            String text = log.text();
            assertTrue(text.contains("the-slow-one"), text);
            assertTrue(text.contains("debugModeLogsSlowCallbacksWithWhereTheyWereScheduled"), text);
        }
    }

    @Test
    void debugModeReportsAFailedFutureNobodyLookedAt() throws Exception {
        Loop loop = open(options().withDebug(true));
        List<String> reports = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> reports.add(message + " " + error));
        failAndForget(loop);
        Promise<String> looked = loop.newPromise();
        looked.fail(new IllegalStateException("seen"));
        assertNotNull(looked.exception());
        for (int i = 0; i < 100 && reports.isEmpty(); i++) {
            System.gc();
            Thread.sleep(20);
            spin(loop);
        }
        assertEquals(1, reports.size(), String.valueOf(reports));
        assertTrue(reports.get(0).contains("never retrieved") && reports.get(0).contains("forgotten"), reports.get(0));
        assertNotNull(looked);
    }

    private static void failAndForget(Loop loop) {
        loop.<String>newPromise().fail(new IllegalStateException("forgotten"));
    }
}
