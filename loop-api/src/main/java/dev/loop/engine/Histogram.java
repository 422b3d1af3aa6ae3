package dev.loop.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A fixed-size log-linear histogram of durations in nanoseconds: each power of two is split into
 * {@value #SUB} equal buckets, so a value is known to within 1/{@value #SUB} (12.5%) of itself
 * from 1 ns up to {@code Long.MAX_VALUE}, in {@value #BUCKETS} counts (about 4 KiB), allocated once.
 * Recording is an index computation and one store: no allocation, no lock, no atomic instruction.
 *
 * <p>One writer (the loop thread); any thread may {@linkplain #copyTo copy} the counts. Stores and
 * loads are opaque: a copy never sees a torn count, but taken while the loop runs it may be a few
 * values behind, and the exact {@linkplain #max() max} may belong to a value not yet counted.
 */
final class Histogram {
    private static final int SUB_BITS = 3;
    static final int SUB = 1 << SUB_BITS;
    /** Values below SUB get a bucket each; then SUB buckets per power of two from 2^SUB_BITS to 2^62. */
    static final int BUCKETS = (63 - SUB_BITS + 1) * SUB;
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle MAX;

    static {
        try {
            MAX = MethodHandles.lookup().findVarHandle(Histogram.class, "max", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] counts = new long[BUCKETS];
    @SuppressWarnings("unused") // through MAX
    private long max;

    /** Counts {@code nanos}; a negative value (a clock that went back) counts as 0. Writer only. */
    void record(long nanos) {
        long v = Math.max(nanos, 0);
        int i = index(v);
        COUNT.setOpaque(counts, i, counts[i] + 1);
        if (v > max) {
            MAX.setOpaque(this, v);
        }
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS
        int sub = (int) (v >>> (exp - SUB_BITS)) & (SUB - 1);
        return (exp - SUB_BITS + 1) * SUB + sub;
    }

    /** The largest value that lands in bucket {@code i}: what a percentile reports (never understated). */
    static long upperBound(int i) {
        if (i < SUB) {
            return i;
        }
        int exp = i / SUB + SUB_BITS - 1;
        long sub = i % SUB;
        long low = (1L << exp) + (sub << (exp - SUB_BITS));
        long width = 1L << (exp - SUB_BITS);
        return low + (width - 1) < low ? Long.MAX_VALUE : low + width - 1;
    }

    /** Adds the counts to {@code into} (length {@link #BUCKETS}); any thread. */
    void copyTo(long[] into) {
        for (int i = 0; i < BUCKETS; i++) {
            into[i] += (long) COUNT.getOpaque(counts, i);
        }
    }

    /** The largest value recorded; any thread. */
    long max() {
        return (long) MAX.getOpaque(this);
    }
}
