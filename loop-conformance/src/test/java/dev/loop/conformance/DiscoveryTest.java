package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ProviderInfo;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Discovery with every module of the project on the class path, as a host application has them. */
class DiscoveryTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty(Loops.TIMERS_PROPERTY);
        System.clearProperty(Loops.BACKEND_PROPERTY);
    }

    @Test
    void findsEveryBackendAndTimerStrategyOfTheProject() {
        List<String> names = Loops.providers().stream().map(ProviderInfo::name).toList();
        assertTrue(names.containsAll(List.of("select", "epoll", "io_uring", "heap", "wheel")), names.toString());
    }

    @Test
    void theBestAvailableIsEpollOnLinuxWithHeapTimers() {
        // io_uring ranks below epoll until the comparison measures it faster (ADR 0011).
        boolean epoll = available("epoll");
        try (Loop loop = Loops.open()) {
            assertEquals(epoll ? "epoll" : available("io_uring") ? "io_uring" : "select", loop.backendName());
            assertEquals("heap", loop.timersName(), "the heap stays the default");
        }
    }

    @Test
    void theWheelIsSelectedByTheSystemProperty() {
        System.setProperty(Loops.TIMERS_PROPERTY, "wheel");
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"))) {
            assertEquals("wheel", loop.timersName());
        }
    }

    private static boolean available(String backend) {
        return Loops.providers().stream().anyMatch(p -> p.name().equals(backend) && p.available());
    }
}
