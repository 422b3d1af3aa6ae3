package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A backend chosen by priority is announced once, at INFO, with why every other backend was
 * passed over: on a machine without the native jars the loop falls back to another backend, and
 * that should not go unsaid. Once per process per choice: not once per loop of a group.
 */
class BackendChoiceLogTest {
    private final Logger logger = Logger.getLogger("dev.loop.Loops");
    private final List<String> infoLines = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel() == Level.INFO) {
                infoLines.add(r.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level previous;

    @BeforeEach
    void capture() {
        Loops.forgetAnnouncedChoices(); // as in a fresh process: other tests here opened loops already
        previous = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
        logger.setLevel(previous);
        System.clearProperty(Loops.BACKEND_PROPERTY);
    }

    @Test
    void aChoiceByPriorityIsAnnouncedOnceWithWhyTheOthersWerePassedOver() {
        String first;
        try (Loop a = Loops.open(); Loop b = Loops.open()) {
            assertEquals("park", a.backendName());
            assertEquals("park", b.backendName());
            first = a.name();
        }
        try (LoopGroup g = LoopGroup.open(3, LoopOptions.defaults())) {
            assertEquals(3, g.size());
        }
        assertEquals(1, infoLines.size(), "one line for five loops: " + infoLines);
        String line = infoLines.get(0);
        assertTrue(line.startsWith("[" + first + "] backend park chosen by priority"),
                "named after the loop that chose it, in the form of every record: " + line);
        assertTrue(line.contains("-Dloop.backend"), "says how to name one: " + line);
        assertTrue(line.contains("nowhere unavailable: ") && line.contains("hardware"),
                "the better backend passed over, with its reason: " + line);
        assertTrue(line.contains("constructor failed on purpose"), "a provider that failed to load too: " + line);
    }

    @Test
    void aNamedBackendIsNotAnnounced() {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"))) {
            assertEquals("park", loop.backendName());
        }
        System.setProperty(Loops.BACKEND_PROPERTY, "park");
        try (Loop loop = Loops.open()) {
            assertEquals("park", loop.backendName());
        }
        assertEquals(List.of(), infoLines);
    }
}
