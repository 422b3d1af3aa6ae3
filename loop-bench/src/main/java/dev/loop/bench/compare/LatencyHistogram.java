package dev.loop.bench.compare;

/**
 * Latencies in nanoseconds, counted in log-linear buckets: exact below 128 ns, then 64 buckets per
 * power of two, so any percentile is within 1/64 (1.6%) of the true value. Recording is a shift,
 * an add and an increment; nothing is allocated after construction. Not thread-safe.
 */
public final class LatencyHistogram {
    private static final int SUB_BITS = 6;
    private static final int SUB = 1 << SUB_BITS; // 64 buckets per power of two
    private static final int LINEAR = 2 * SUB;    // values below 128 have a bucket each
    private static final int BUCKETS = (63 - SUB_BITS) * SUB + LINEAR;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long max;

    /** Counts one latency; a negative value counts as zero. */
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        total++;
        if (v > max) {
            max = v;
        }
    }

    static int index(long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        int shift = 63 - Long.numberOfLeadingZeros(v) - SUB_BITS;
        return (shift << SUB_BITS) + (int) (v >>> shift);
    }

    /** The lowest value that falls in bucket {@code i}. */
    static long lowest(int i) {
        if (i < LINEAR) {
            return i;
        }
        int shift = (i >>> SUB_BITS) - 1;
        long mantissa = i - ((long) shift << SUB_BITS);
        return mantissa << shift;
    }

    /** The width of bucket {@code i}. */
    static long width(int i) {
        return i < LINEAR ? 1 : 1L << ((i >>> SUB_BITS) - 1);
    }

    public long count() {
        return total;
    }

    public long max() {
        return max;
    }

    /**
     * The value at {@code percentile} (0 to 100): the middle of the bucket holding the
     * ceil(p/100 * count)-th smallest value; NaN when nothing was recorded.
     */
    public double percentile(double percentile) {
        if (percentile < 0 || percentile > 100) {
            throw new IllegalArgumentException("percentile must be in [0, 100]: " + percentile);
        }
        if (total == 0) {
            return Double.NaN;
        }
        long rank = Math.max(1, (long) Math.ceil(percentile / 100 * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                double mid = lowest(i) + (width(i) - 1) / 2.0;
                return Math.min(mid, max);
            }
        }
        return max;
    }

    /** Adds {@code other}'s counts to this one. */
    public void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        max = Math.max(max, other.max);
    }

    public void reset() {
        java.util.Arrays.fill(counts, 0);
        total = 0;
        max = 0;
    }
}
