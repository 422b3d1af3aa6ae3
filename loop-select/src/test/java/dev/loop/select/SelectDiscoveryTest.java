package dev.loop.select;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Loop;
import dev.loop.Loops;
import dev.loop.LoopOptions;
import org.junit.jupiter.api.Test;

class SelectDiscoveryTest {

    @Test
    void isFoundAndChosenWhenItIsTheOnlyBackend() {
        try (Loop loop = Loops.open()) {
            assertEquals("select", loop.backendName());
            assertEquals("heap", loop.timersName());
        }
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("SELECT"))) {
            assertEquals("select", loop.backendName(), "names are matched case-insensitively");
        }
    }
}
