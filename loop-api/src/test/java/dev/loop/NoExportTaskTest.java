package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The task contract in a JVM started without {@code --add-exports java.base/jdk.internal.vm}
 * (loop-api's second surefire execution): the automatic choice must fall back to threads, warn
 * once naming the flag, and pass the same suite. Skipped in JVMs that have the export.
 */
class NoExportTaskTest extends TaskContract {
    private static String warning = "";

    @BeforeAll
    static void firstLoopWarns() {
        assumeFalse(ContinuationMechanism.AVAILABLE, "this JVM exports jdk.internal.vm: nothing to fall back from");
        try (LogCapture log = LogCapture.start("dev.loop.tasks")) {
            for (int i = 0; i < 2; i++) { // two loops, one warning
                try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"))) {
                    loop.runUntilComplete(loop.spawn(() -> null));
                }
            }
            warning = log.text();
        }
    }

    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("park").withTimers("heap");
    }

    @Override
    protected String mechanism() {
        return null;
    }

    @Test
    void theFallbackIsChosenAndTheWarningNamesTheFlagOnce() {
        assertEquals("threads", ((EventLoop) open()).tasks().mechanism().name());
        assertTrue(warning.contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), warning);
        assertEquals(1, warning.split("WARNING", -1).length - 1, "warned once: " + warning);
    }
}
