package dev.loop.iouring;

import java.util.function.Consumer;

/**
 * Spare buffers of one size, kept for reuse up to a bound, and freed when they were not needed
 * for a whole sweep interval. Not thread-safe: loop thread only.
 *
 * <p>Direct memory the JDK allocates is freed only when a collection finds its buffer unreachable,
 * and a server whose heap is idle never collects: every buffer a burst of traffic left behind stayed
 * resident. So this backend frees its buffers itself ({@link #free}), and keeps only what the loop
 * is likely to need again: at most {@link #bound()} spares, and of those only as many as some take
 * since the last {@link #trim()} did not reach (the low-water mark), so a burst's buffers are gone
 * one interval after it.
 */
final class Spares<T> {
    private final Object[] items;
    private final Consumer<T> free;
    private int count;
    /** The fewest spares held since the last trim: that many were not needed all interval. */
    private int lowWater;
    /** Buffers freed by this pool so far (for tests and figures). */
    long freed;

    Spares(int bound, Consumer<T> free) {
        this.items = new Object[bound];
        this.free = free;
    }

    /** A spare, most recently given back first (its memory is likelier to be resident), or null. */
    @SuppressWarnings("unchecked")
    T poll() {
        if (count == 0) {
            return null;
        }
        T t = (T) items[--count];
        items[count] = null;
        if (count < lowWater) {
            lowWater = count;
        }
        return t;
    }

    /** Keeps {@code t}, which nothing uses any more, or frees it when the pool is full. */
    void giveBack(T t) {
        if (count < items.length) {
            items[count++] = t;
        } else {
            freeOne(t);
        }
    }

    /**
     * Frees the spares that no take needed since the last trim, the least recently given back
     * first; the driver's idle sweep calls it about once a second.
     *
     * @return how many were freed
     */
    int trim() {
        int n = lowWater;
        if (n > 0) {
            for (int i = 0; i < n; i++) {
                freeOne(at(i));
            }
            System.arraycopy(items, n, items, 0, count - n);
            for (int i = count - n; i < count; i++) {
                items[i] = null;
            }
            count -= n;
        }
        lowWater = count;
        return n;
    }

    /** Frees every spare: the loop is closing. */
    void clear() {
        for (int i = 0; i < count; i++) {
            freeOne(at(i));
            items[i] = null;
        }
        count = 0;
        lowWater = 0;
    }

    int size() {
        return count;
    }

    int bound() {
        return items.length;
    }

    @SuppressWarnings("unchecked")
    private T at(int i) {
        return (T) items[i];
    }

    private void freeOne(T t) {
        freed++;
        free.accept(t);
    }
}
