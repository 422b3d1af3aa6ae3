package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When the loop asks the C allocator to give freed buffers back ({@link Buffers#releaseFreed()}):
 * at once after a burst freed many, one sweep later for fewer, never for a trickle, and never
 * where the call is unavailable.
 */
class BuffersReleaseTest {
    @Test
    void releasesAfterABurstAtOnceAndAfterLessOneSweepLater() {
        Buffers buffers = new Buffers();
        assertFalse(buffers.releaseFreed(), "nothing freed: nothing to give back");

        freeReceiveBuffers(buffers, (int) (Buffers.RELEASE_BYTES / Buffers.MIN) + Buffers.receiveBound(Buffers.MIN));
        assertTrue(buffers.freedBytes >= Buffers.RELEASE_BYTES);
        assertEquals(MallocTrim.available(), buffers.releaseFreed(), "a burst's worth freed: given back at once");
        assertFalse(buffers.releaseFreed(), "and only once");

        buffers.clear(); // the spares: a quarter of what asks at once, more than a trickle
        if (MallocTrim.available()) {
            assertFalse(buffers.releaseFreed(), "less than a burst waits a sweep");
            assertTrue(buffers.releasePending());
            assertTrue(buffers.releaseFreed(), "and is given back at the next");
            assertFalse(buffers.releasePending());
        } else {
            assertFalse(buffers.releaseFreed());
            assertFalse(buffers.releasePending(), "nothing waits for a call that is not there");
        }
        assertEquals(0, buffers.live());
    }

    @Test
    void aBurstIsGivenBackBetweenSweepsAtMostOncePerInterval() {
        Buffers buffers = new Buffers();
        int burst = (int) (Buffers.RELEASE_BYTES / Buffers.MIN) + Buffers.receiveBound(Buffers.MIN);
        assertFalse(buffers.releaseBurst(0), "nothing freed");
        freeReceiveBuffers(buffers, burst);
        assertEquals(MallocTrim.available(), buffers.releaseBurst(1_000), "a burst freed: given back at once");
        freeReceiveBuffers(buffers, burst);
        assertFalse(buffers.releaseBurst(1_000 + Buffers.BURST_RELEASE_INTERVAL_NANOS - 1), "not twice in an interval");
        assertEquals(MallocTrim.available(), buffers.releaseBurst(1_000 + Buffers.BURST_RELEASE_INTERVAL_NANOS),
                "again once the interval passed");
        buffers.clear();
        assertFalse(buffers.releaseBurst(Long.MAX_VALUE), "the spares alone are no burst: the sweep gives them back");
    }

    /** A lookup that broke would turn the release into a silent no-op: it must be found where it can be. */
    @Test
    void mallocTrimIsFoundWhereTheJdkAndTheCLibraryOfferIt() throws Exception {
        assumeTrue(Runtime.version().feature() >= 22, "java.lang.foreign is final from JDK 22");
        assumeTrue((boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(MallocTrim.class.getModule()),
                "native access not granted to this module");
        assumeTrue(glibc(), "malloc_trim is glibc's");
        assertTrue(MallocTrim.available());
        MallocTrim.trim(); // and calling it is harmless
    }

    private static boolean glibc() {
        try {
            return Files.readString(Path.of("/proc/self/maps")).contains("libc.so.6");
        } catch (IOException e) {
            return false;
        }
    }

    /** Takes {@code n} receive buffers at once and gives them all back: beyond the spares' bound they are freed. */
    private static void freeReceiveBuffers(Buffers buffers, int n) {
        List<Inbound> taken = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            taken.add(buffers.takeReceive(Buffers.MIN));
        }
        for (Inbound b : taken) {
            buffers.giveBackReceive(b);
        }
    }
}
