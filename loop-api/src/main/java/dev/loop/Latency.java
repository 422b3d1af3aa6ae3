package dev.loop;

import dev.loop.engine.LoopStats;
import java.time.Duration;
import java.util.Arrays;

/**
 * A distribution of durations taken from a loop's fixed-size log-linear histogram: every power of
 * two of nanoseconds is split into eight buckets, so a {@linkplain #percentile percentile} is the
 * top of the bucket it falls in, at most 12.5% above the true value and never below it. The
 * {@linkplain #max() max} is exact. Immutable.
 */
public final class Latency {
    private static final Latency EMPTY = new Latency(new long[LoopStats.buckets()], 0);

    private final long[] counts;
    private final long count;
    private final long max;

    Latency(long[] counts, long max) {
        this.counts = counts;
        this.max = max;
        long c = 0;
        for (long n : counts) {
            c += n;
        }
        this.count = c;
    }

    static Latency empty() {
        return EMPTY;
    }

    /** The values counted. */
    public long count() {
        return count;
    }

    /** The largest value counted, in nanoseconds (0 if none). */
    public long maxNanos() {
        return count == 0 ? 0 : max;
    }

    /**
     * The value at or below which a fraction {@code q} of the values lie, in nanoseconds, as the top
     * of its bucket and never more than the max; 0 if none was counted.
     *
     * @throws IllegalArgumentException unless {@code 0 <= q <= 1}
     */
    public long percentileNanos(double q) {
        if (!(q >= 0 && q <= 1)) {
            throw new IllegalArgumentException("a percentile is a fraction from 0 to 1: " + q);
        }
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * count));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(LoopStats.bucketUpperBound(i), max);
            }
        }
        return max;
    }

    public long p50Nanos() {
        return percentileNanos(0.5);
    }

    public long p99Nanos() {
        return percentileNanos(0.99);
    }

    public Duration p50() {
        return Duration.ofNanos(p50Nanos());
    }

    public Duration p99() {
        return Duration.ofNanos(p99Nanos());
    }

    public Duration max() {
        return Duration.ofNanos(maxNanos());
    }

    /** The values of both distributions together (a group's loops, summed). */
    public Latency plus(Latency other) {
        long[] sum = counts.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += other.counts[i];
        }
        return new Latency(sum, Math.max(max, other.max));
    }

    /** What was counted after {@code earlier} (a snapshot of the same loop): for a rate over an interval. The max stays the all-time max. */
    public Latency since(Latency earlier) {
        long[] diff = counts.clone();
        for (int i = 0; i < diff.length; i++) {
            diff[i] = Math.max(0, diff[i] - earlier.counts[i]);
        }
        return new Latency(diff, max);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Latency l && l.max == max && Arrays.equals(l.counts, counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts) * 31 + Long.hashCode(max);
    }

    @Override
    public String toString() {
        return "Latency[count=" + count + ", p50=" + p50Nanos() + "ns, p99=" + p99Nanos() + "ns, max=" + maxNanos() + "ns]";
    }
}
