package dev.loop.timerwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loops;
import dev.loop.ProviderInfo;
import dev.loop.spi.TimerQueueProvider;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Discovery and configuration of the {@code wheel} strategy (choosing it for a loop is
 * loop-conformance's DiscoveryTest, where backends are on the class path).
 */
class TimerWheelProviderTest {
    @AfterEach
    void clearProperties() {
        System.clearProperty(TimerWheelProvider.TICK_PROPERTY);
        System.clearProperty(TimerWheelProvider.SIZE_PROPERTY);
        System.clearProperty(Loops.TIMERS_PROPERTY);
    }

    @Test
    void isFoundByServiceLoaderBelowTheHeap() {
        TimerQueueProvider wheel = ServiceLoader.load(TimerQueueProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("wheel"))
                .findFirst().orElseThrow();
        assertNull(wheel.unavailabilityCause());
        ProviderInfo heap = Loops.providers().stream().filter(p -> p.name().equals("heap")).findFirst().orElseThrow();
        assertTrue(wheel.priority() < heap.priority(), "the heap stays the default");
    }

    @Test
    void takesItsShapeFromSystemProperties() {
        TimerWheelProvider p = new TimerWheelProvider();
        TimerWheel plain = (TimerWheel) p.newTimerQueue();
        assertEquals(TimerWheel.DEFAULT_TICK_NANOS, plain.tickNanos());
        assertEquals(TimerWheel.DEFAULT_WHEEL_SIZE, plain.wheelSize());

        System.setProperty(TimerWheelProvider.TICK_PROPERTY, "100_000");
        System.setProperty(TimerWheelProvider.SIZE_PROPERTY, "64");
        TimerWheel shaped = (TimerWheel) p.newTimerQueue();
        assertEquals(100_000, shaped.tickNanos());
        assertEquals(64, shaped.wheelSize());

        System.setProperty(TimerWheelProvider.SIZE_PROPERTY, "100");
        Throwable why = p.unavailabilityCause();
        assertNotNull(why);
        assertTrue(why.getMessage().contains(TimerWheelProvider.SIZE_PROPERTY) && why.getMessage().contains("power of two"),
                why.getMessage());
        System.setProperty(TimerWheelProvider.SIZE_PROPERTY, "lots");
        assertTrue(assertThrows(IllegalArgumentException.class, p::newTimerQueue).getMessage().contains("lots"));
    }
}
