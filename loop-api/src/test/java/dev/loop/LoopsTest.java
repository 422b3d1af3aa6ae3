package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Discovery: what is found, what is chosen, and what a wrong name is told. */
class LoopsTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty(Loops.BACKEND_PROPERTY);
        System.clearProperty(Loops.TIMERS_PROPERTY);
    }

    @Test
    void listsEveryProviderWithItsAvailabilityAndCause() {
        List<ProviderInfo> all = Loops.providers();
        ProviderInfo park = find(all, "park");
        assertTrue(park.available());
        assertEquals(ProviderInfo.BACKEND, park.kind());
        ProviderInfo nowhere = find(all, "nowhere");
        assertFalse(nowhere.available());
        assertTrue(nowhere.reason().contains("hardware"), nowhere.reason());
        ProviderInfo heap = find(all, "heap");
        assertEquals(ProviderInfo.TIMERS, heap.kind());
        assertTrue(all.stream().anyMatch(p -> !p.available() && p.reason().contains("constructor failed on purpose")),
                "a provider whose constructor throws is listed with its error: " + all);
    }

    @Test
    void bestAvailableSkipsTheUnavailableOneEvenWithHigherPriority() {
        try (Loop loop = Loops.open()) {
            assertEquals("park", loop.backendName());
            assertEquals("heap", loop.timersName());
        }
    }

    @Test
    void theFallbackPastAnUnavailableBackendIsLoggedAtDebugWithItsCause() {
        // How epoll's absence shows on a machine without it: the loop opens on the next backend,
        // and the DEBUG line says which one and why the better one was passed over.
        Logger logger = Logger.getLogger("dev.loop.Loops");
        Level level = logger.getLevel();
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.setLevel(Level.ALL);
        logger.addHandler(capture);
        String name;
        try (Loop loop = Loops.open()) {
            assertEquals("park", loop.backendName());
            name = loop.name();
        } finally {
            logger.removeHandler(capture);
            logger.setLevel(level);
        }
        String t = String.join("\n", lines);
        assertTrue(t.contains("FINE [" + name + "] opened on backend park (highest priority available; others: "), t);
        assertTrue(t.contains("nowhere unavailable: ") && t.contains("hardware"), t);
    }

    @Test
    void anUnknownNameListsEveryProvider() {
        String m = assertThrows(IllegalArgumentException.class,
                () -> Loops.open(LoopOptions.defaults().withBackend("kqueue"))).getMessage();
        assertTrue(m.contains("unknown backend 'kqueue'"), m);
        assertTrue(m.contains("park") && m.contains("nowhere") && m.contains("heap"), m);
    }

    @Test
    void anUnavailableNameSaysWhy() {
        String m = assertThrows(IllegalArgumentException.class,
                () -> Loops.open(LoopOptions.defaults().withBackend("nowhere"))).getMessage();
        assertTrue(m.contains("'nowhere'") && m.contains("unavailable") && m.contains("hardware"), m);
    }

    @Test
    void theSystemPropertyIsUsedWhenOptionsNameNothingAndOptionsWin() {
        System.setProperty(Loops.BACKEND_PROPERTY, "nowhere");
        String m = assertThrows(IllegalArgumentException.class, Loops::open).getMessage();
        assertTrue(m.contains("-Dloop.backend"), "the message names where the choice came from: " + m);
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"))) {
            assertEquals("park", loop.backendName());
        }
        System.clearProperty(Loops.BACKEND_PROPERTY);
        System.setProperty(Loops.TIMERS_PROPERTY, "no-such-timers");
        String t = assertThrows(IllegalArgumentException.class, Loops::open).getMessage();
        assertTrue(t.contains("no-such-timers"), t);
    }

    private static ProviderInfo find(List<ProviderInfo> all, String name) {
        return all.stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in " + all));
    }
}
