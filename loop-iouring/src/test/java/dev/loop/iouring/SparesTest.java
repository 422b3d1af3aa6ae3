package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounded pool of spare buffers: never more than its bound, and what an interval did not need is freed. */
class SparesTest {
    private final List<String> freed = new ArrayList<>();
    private final Spares<String> spares = new Spares<>(3, freed::add);

    @Test
    void aFullPoolFreesWhatIsGivenBackInsteadOfGrowing() {
        for (int i = 0; i < 5; i++) {
            spares.giveBack("b" + i);
        }
        assertEquals(3, spares.size());
        assertEquals(List.of("b3", "b4"), freed);
        assertEquals("b2", spares.poll(), "the most recently given back first");
    }

    @Test
    void sparesNoTakeNeededForAWholeIntervalAreFreedAtTheTrim() {
        spares.giveBack("a");
        spares.giveBack("b");
        spares.giveBack("c");
        spares.trim(); // the interval starts with three
        assertSame("c", spares.poll());
        assertSame("b", spares.poll()); // one was never needed
        spares.giveBack("b");
        assertEquals(1, spares.trim());
        assertEquals(List.of("a"), freed, "the least recently given back goes first");
        assertEquals(1, spares.size());
        assertEquals(1, spares.trim(), "an interval with no take at all frees the rest");
        assertNull(spares.poll());
        assertEquals(2, spares.freed);
    }

    @Test
    void clearFreesEverySpare() {
        spares.giveBack("a");
        spares.giveBack("b");
        spares.clear();
        assertEquals(List.of("a", "b"), freed);
        assertEquals(0, spares.size());
    }

    @Test
    void buffersAreSizedInPowersOfTwoWithinTheBounds() {
        assertEquals(Buffers.MIN, Buffers.sizeFor(1));
        assertEquals(Buffers.MIN, Buffers.sizeFor(Buffers.MIN));
        assertEquals(4096, Buffers.sizeFor(Buffers.MIN + 1));
        assertEquals(Buffers.MAX, Buffers.sizeFor(Buffers.MAX));
        assertEquals(Buffers.MAX, Buffers.sizeFor(Buffers.MAX * 4));
    }
}
