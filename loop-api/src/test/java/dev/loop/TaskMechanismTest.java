package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** How a loop picks its task mechanism, with the JVM's state passed in so both cases run here. */
class TaskMechanismTest {
    private static final String LOGGER = "dev.loop.tasks.selection-test";

    @Test
    void autoTakesContinuationsWhenExported() {
        TaskMechanism m = TaskMechanism.choose(null, true, null, new AtomicBoolean(), System.getLogger(LOGGER));
        assertEquals("continuation", m.name());
    }

    @Test
    void withoutTheExportAutoFallsBackToThreadsAndWarnsOnceNamingTheFlag() {
        AtomicBoolean warned = new AtomicBoolean();
        try (LogCapture log = LogCapture.start(LOGGER)) {
            for (int i = 0; i < 3; i++) {
                TaskMechanism m = TaskMechanism.choose("auto", false, "not exported", warned, System.getLogger(LOGGER));
                assertEquals("threads", m.name());
            }
            String text = log.text();
            assertTrue(text.contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), text);
            assertEquals(1, text.split("WARNING", -1).length - 1, "warned once: " + text);
        }
    }

    @Test
    void requiringContinuationsWithoutTheExportIsAClearError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TaskMechanism.choose("continuation",
                false, "not exported", new AtomicBoolean(), System.getLogger(LOGGER)));
        assertTrue(e.getMessage().contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), e.getMessage());
    }

    @Test
    void threadsCanBeForcedAndUnknownNamesAreRefused() {
        assertEquals("threads", TaskMechanism.choose(" Threads ", true, null, new AtomicBoolean(),
                System.getLogger(LOGGER)).name());
        assertThrows(IllegalArgumentException.class, () -> TaskMechanism.choose("fibers", true, null,
                new AtomicBoolean(), System.getLogger(LOGGER)));
    }

    @Test
    void thisJvmHasTheExportTheBuildPasses() {
        // The default surefire run passes the flag; NoExportTaskTest covers the run without it.
        if (Boolean.getBoolean("loop.test.noExport")) {
            return;
        }
        assertTrue(ContinuationMechanism.AVAILABLE, ContinuationMechanism.UNAVAILABLE_REASON);
    }
}
