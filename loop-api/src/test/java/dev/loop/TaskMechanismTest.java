package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** How a loop picks its task mechanism, with the JVM's state passed in so both cases run here. */
class TaskMechanismTest {
    private static final String LOGGER = "dev.loop.tasks.selection-test";

    @Test
    void autoTakesContinuationsWhenExported() {
        TaskMechanism m = TaskMechanism.choose(null, true, null, new AtomicBoolean(), System.getLogger(LOGGER), "loop-9-test");
        assertEquals("continuation", m.name());
    }

    @Test
    void withoutTheExportAutoFallsBackToThreadsAndWarnsOnceNamingTheFlag() {
        AtomicBoolean warned = new AtomicBoolean();
        List<String> logged = new ArrayList<>();
        System.Logger log = new System.Logger() {
            @Override
            public String getName() {
                return LOGGER;
            }

            @Override
            public boolean isLoggable(Level level) {
                return true;
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
                logged.add(level + " " + msg);
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String format, Object... params) {
                logged.add(level + " " + format);
            }
        };
        for (int i = 0; i < 3; i++) {
            TaskMechanism m = TaskMechanism.choose("auto", false, "not exported", warned, log, "loop-9-test");
            assertEquals("threads", m.name());
        }
        assertEquals(1, logged.size(), "warned once: " + logged);
        assertTrue(logged.get(0).startsWith("WARNING [loop-9-test] "), "names the loop that chose: " + logged.get(0));
        assertTrue(logged.get(0).contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), logged.get(0));
    }

    @Test
    void requiringContinuationsWithoutTheExportIsAClearError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TaskMechanism.choose("continuation",
                false, "not exported", new AtomicBoolean(), System.getLogger(LOGGER), "loop-9-test"));
        assertTrue(e.getMessage().contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), e.getMessage());
    }

    @Test
    void threadsCanBeForcedAndUnknownNamesAreRefused() {
        assertEquals("threads", TaskMechanism.choose(" Threads ", true, null, new AtomicBoolean(),
                System.getLogger(LOGGER), "loop-9-test").name());
        assertThrows(IllegalArgumentException.class, () -> TaskMechanism.choose("fibers", true, null,
                new AtomicBoolean(), System.getLogger(LOGGER), "loop-9-test"));
    }

    @Test
    void thisJvmHasTheExportTheBuildPasses() {
        // surefire passes the flag; loop-conformance's NoExportTaskTest covers a JVM without it.
        assertTrue(ContinuationMechanism.AVAILABLE, ContinuationMechanism.UNAVAILABLE_REASON);
    }
}
