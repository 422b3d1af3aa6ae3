package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.LoopClock;
import java.lang.management.ManagementFactory;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The metrics' histogram: every value lands in a bucket whose top is at most 1/8 above it, the
 * buckets are in order, and recording (as the loop does every iteration) allocates nothing.
 */
class HistogramTest {

    @Test
    void everyValueIsInABucketWhoseTopIsWithinAnEighthAboveIt() {
        Random rnd = new Random(3);
        for (int k = 0; k < 200_000; k++) {
            long v = rnd.nextLong() >>> (1 + rnd.nextInt(63));
            int i = Histogram.index(v);
            long top = Histogram.upperBound(i);
            assertTrue(v <= top, v + " above its bucket's top " + top);
            assertTrue(i == 0 || v > Histogram.upperBound(i - 1), v + " belongs below bucket " + i);
            assertTrue(top - v <= v / Histogram.SUB, v + ": bucket top " + top + " more than 1/8 above");
        }
        assertEquals(Histogram.BUCKETS - 1, Histogram.index(Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, Histogram.upperBound(Histogram.BUCKETS - 1));
    }

    @Test
    void bucketsAreContiguous() {
        for (int i = 1; i < Histogram.BUCKETS; i++) {
            long low = Histogram.upperBound(i - 1) + 1;
            assertEquals(i, Histogram.index(low), "the first value of bucket " + i);
        }
    }

    @Test
    void recordingAndAWholeIterationsBookkeepingAllocateNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        LoopStats stats = new LoopStats(LoopClock.system(), "test", Long.MAX_VALUE);
        Histogram h = new Histogram();
        Runnable work = () -> {
            for (int k = 0; k < 100_000; k++) {
                h.record(k * 37L);
                stats.iterationBegins();
                stats.mayWait();
                stats.pollEnded(stats.pollBegins(5));
                stats.callbacksBegin(3);
                stats.fromOtherThread();
                stats.timersFired(1);
                stats.streamRead(100);
                stats.streamWrite();
                stats.datagramIn();
                stats.datagramsOut(2);
                stats.iterationEnds(0, 2);
            }
        };
        work.run(); // compiled and warmed before measuring
        long id = Thread.currentThread().threadId();
        long before = threads.getThreadAllocatedBytes(id);
        work.run();
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 1024, "100,000 iterations' bookkeeping allocated " + allocated + " bytes");
        assertEquals(200_000, stats.get(LoopStats.BYTES_IN) / 100);
        assertEquals(200_000, stats.get(LoopStats.STREAM_READS));
        assertEquals(400_000, stats.get(LoopStats.DATAGRAMS_OUT));
    }
}
