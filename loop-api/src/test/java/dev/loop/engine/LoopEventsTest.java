package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The recorder accepts every event class: one it refuses (a field named as JFR's own, such as
 * {@code duration}) would leave its gate shut for good, silently, since the loop must not fail
 * over an event.
 */
class LoopEventsTest {

    @Test
    void everyEventClassIsRegistered() {
        for (LoopEvents.Gate g : new LoopEvents.Gate[] {LoopEvents.SLOW_CALLBACK, LoopEvents.SLOW_TASK_TURN,
                LoopEvents.STALL, LoopEvents.CONNECTION_OPENED, LoopEvents.CONNECTION_CLOSED, LoopEvents.TLS}) {
            assertTrue(g.registered());
        }
        assertTrue(new LoopEvents.Gate(LoopEvents.LoopStatistics.class).registered());
    }
}
