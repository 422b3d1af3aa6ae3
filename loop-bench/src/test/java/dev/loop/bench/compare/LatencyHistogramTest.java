package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void emptyHasNoPercentiles() {
        assertTrue(Double.isNaN(new LatencyHistogram().percentile(50)));
    }

    @Test
    void smallValuesAreExact() {
        LatencyHistogram h = new LatencyHistogram();
        for (int v = 1; v <= 100; v++) {
            h.record(v);
        }
        assertEquals(50, h.percentile(50));
        assertEquals(99, h.percentile(99));
        assertEquals(100, h.percentile(100));
        assertEquals(1, h.percentile(0));
        assertEquals(100, h.count());
    }

    @Test
    void uniformMicrosecondsWithinBucketPrecision() {
        LatencyHistogram h = new LatencyHistogram();
        for (long us = 1; us <= 100_000; us++) {
            h.record(us * 1000);
        }
        assertEquals(50_000_000, h.percentile(50), 50_000_000 / 64.0);
        assertEquals(99_000_000, h.percentile(99), 99_000_000 / 64.0);
        assertEquals(100_000_000, h.max());
        assertTrue(h.percentile(100) <= h.max());
    }

    @Test
    void everyBucketHoldsWhatItsBoundsSay() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long v = r.nextLong(1L << r.nextInt(1, 62));
            int b = LatencyHistogram.index(v);
            long lo = LatencyHistogram.lowest(b);
            assertTrue(v >= lo && v < lo + LatencyHistogram.width(b), v + " not in bucket " + b);
            assertTrue(LatencyHistogram.width(b) <= Math.max(1, v / 64), "bucket too wide for " + v);
        }
    }

    @Test
    void aTailShowsInP99NotP50() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 980; i++) {
            h.record(20_000);
        }
        for (int i = 0; i < 20; i++) {
            h.record(5_000_000);
        }
        assertEquals(20_000, h.percentile(50), 20_000 / 64.0);
        assertEquals(5_000_000, h.percentile(99), 5_000_000 / 64.0);
    }

    @Test
    void addAndReset() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(10);
        b.record(1000);
        b.record(-5); // counted as zero
        a.add(b);
        assertEquals(3, a.count());
        assertEquals(1000, a.max());
        assertEquals(0, a.percentile(1));
        a.reset();
        assertEquals(0, a.count());
        assertThrows(IllegalArgumentException.class, () -> a.percentile(101));
    }
}
