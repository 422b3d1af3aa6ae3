package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.testkit.LogCapture;
import dev.loop.testkit.Matrix;
import org.junit.jupiter.api.Test;

/**
 * In a JVM started without {@code --add-exports java.base/jdk.internal.vm} (this module's second
 * surefire execution, which also runs the task suites there): the automatic choice falls back to
 * threads and warns once, naming the flag. Skipped in JVMs that have the export.
 */
class NoExportTaskTest {

    @Test
    void theFallbackIsChosenAndTheWarningNamesTheFlagOnce() {
        assumeFalse(Matrix.continuationsExported(), "this JVM exports jdk.internal.vm: nothing to fall back from");
        String warning;
        String mechanism = null;
        try (LogCapture log = LogCapture.start("dev.loop.tasks")) {
            for (int i = 0; i < 2; i++) { // two loops, one warning
                try (Loop loop = Loops.open(LoopOptions.defaults())) {
                    loop.runUntilComplete(loop.spawn(() -> null));
                    mechanism = loop.diagnostics().taskMechanism();
                }
            }
            warning = log.text();
        }
        assertEquals("threads", mechanism);
        assertTrue(warning.contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), warning);
        assertEquals(1, warning.split("WARNING", -1).length - 1, "warned once: " + warning);
    }
}
