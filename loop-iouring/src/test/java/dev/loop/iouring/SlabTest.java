package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.uring.IoUringIoEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Many handles under one Netty registration: slots, and completions reaching the right handle. */
class SlabTest {

    /** A handle that only records its completions. */
    private static final class Recorder extends IoUringChannel {
        final List<String> completions = new ArrayList<>();

        Recorder() {
            super(null, null, -1, null);
        }

        @Override
        void submitRequested() {
        }

        @Override
        void completed(int op, int res, int flags) {
            completions.add(op + ":" + res + ":" + flags);
        }

        @Override
        void cancelInFlight() {
        }

        @Override
        int levelReady() {
            return 0;
        }
    }

    @Test
    void slotsAreDistinctUntilTheSlabIsFullAndComeBackOnlyWhenFreed() {
        Slab slab = new Slab();
        Set<Integer> taken = new HashSet<>();
        Recorder r = new Recorder();
        for (int i = 0; i < Slab.SIZE; i++) {
            int slot = slab.take(r);
            assertTrue(slot >= 0 && slot < Slab.SIZE, "slot " + slot);
            assertTrue(taken.add(slot), "slot " + slot + " handed out twice");
        }
        assertFalse(slab.hasRoom());
        assertEquals(-1, slab.take(r), "a full slab says so");
        slab.free(4321);
        assertTrue(slab.hasRoom());
        assertEquals(4321, slab.take(r), "the freed slot, and only it, is free again");
        assertEquals(-1, slab.take(r));
    }

    @Test
    void aCompletionReachesTheHandleItsDataNamesWithItsTagAndNotAFreedSlot() {
        Slab slab = new Slab();
        Recorder first = new Recorder();
        Recorder last = new Recorder();
        int a = slab.take(first);
        for (int i = 1; i < Slab.SIZE - 1; i++) {
            slab.take(new Recorder());
        }
        int b = slab.take(last);
        assertEquals(Slab.SIZE - 1, b, "the highest slot, whose data has the sign bit set");
        assertSame(last, slab.at(b));

        slab.handle(null, new IoUringIoEvent(64, 4, (byte) 27, (short) (b << Slab.TAG_BITS | Ops.RECV)));
        slab.handle(null, new IoUringIoEvent(-104, 0, (byte) 26, (short) (a << Slab.TAG_BITS | Ops.SEND)));
        assertEquals(List.of(Ops.RECV + ":64:4"), last.completions);
        assertEquals(List.of(Ops.SEND + ":-104:0"), first.completions);

        slab.free(a);
        slab.handle(null, new IoUringIoEvent(1, 0, (byte) 27, (short) (a << Slab.TAG_BITS | Ops.RECV)));
        assertEquals(1, first.completions.size(), "a freed slot's late completion reaches no one");
    }
}
