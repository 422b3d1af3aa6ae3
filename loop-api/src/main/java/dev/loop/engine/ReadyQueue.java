package dev.loop.engine;

import java.util.Arrays;

/**
 * The loop's ready callbacks, first in first out: a ring of references whose storage is
 * {@linkplain #renew renewed} every {@value #RENEW_EVERY} iterations.
 *
 * <p>Why renewed. Every callSoon on the loop thread stores a reference into this ring. Under G1 up
 * to JDK 25, storing a reference to an object of another region into an old object passes a
 * memory fence in the write barrier (StoreLoad, before the barrier looks whether the card is dirty
 * already); into a young object it does not: the card says "young" and the barrier returns. A
 * ring allocated when the loop opened is old after a few collections, and from then on every
 * callSoon of a callback made since paid the fence, about a tenth of an in-loop callSoon
 * (docs/BENCHMARKS.md, "The ready queue kept young"). A ring allocated again every
 * {@value #RENEW_EVERY} iterations stays young for nearly all of its life, for one array of the
 * ring's size per renewal. A renewal also shrinks a ring that a burst grew, so the memory a burst
 * took is given back once the burst has run, which {@link java.util.ArrayDeque} never does.
 *
 * <p>Not thread-safe: the loop thread, or the thread closing the loop.
 */
final class ReadyQueue {
    /** The ring's smallest size, a power of two. */
    static final int INITIAL = 1024;
    /** Iterations between renewals. */
    static final int RENEW_EVERY = 1024;
    /**
     * The largest ring renewed at its own size (128 KiB of compressed references): a larger one
     * could be a humongous object, which G1 allocates in old regions and counts toward starting a
     * marking cycle. It is still renewed when it can shrink.
     */
    static final int RENEW_MAX = 32 * 1024;

    private Object[] ring = new Object[INITIAL];
    private int head;
    private int tail;
    private int iterations;
    private long renewals;

    /** Adds {@code r} behind everything queued. */
    void addLast(Runnable r) {
        Object[] ring = this.ring;
        ring[tail] = r;
        tail = (tail + 1) & (ring.length - 1);
        if (tail == head) {
            resize(ring.length << 1);
        }
    }

    /** Takes the first callback off the queue, or null if it is empty. */
    Runnable pollFirst() {
        Object[] ring = this.ring;
        Object r = ring[head];
        if (r != null) {
            ring[head] = null;
            head = (head + 1) & (ring.length - 1);
        }
        return (Runnable) r;
    }

    int size() {
        return (tail - head) & (ring.length - 1);
    }

    boolean isEmpty() {
        return head == tail;
    }

    /** Drops everything queued. */
    void clear() {
        Arrays.fill(ring, null);
        head = 0;
        tail = 0;
    }

    /** The end of an iteration: every {@value #RENEW_EVERY}th renews the ring. */
    void iterationEnded() {
        if (++iterations >= RENEW_EVERY) {
            iterations = 0;
            renew();
        }
    }

    /**
     * Moves what is queued into a new ring: as large as the old one, or halved (not below
     * {@link #INITIAL}) for as long as what is queued fills an eighth of it or less, so the new
     * ring is at least four times what it holds.
     */
    void renew() {
        int n = size();
        int size = ring.length;
        while (size > INITIAL && n * 8 <= size) {
            size >>= 1;
        }
        if (size < ring.length || size <= RENEW_MAX) {
            resize(size);
            renewals++;
        }
    }

    /** The ring's size now, for tests. */
    int capacity() {
        return ring.length;
    }

    /** Renewals so far, for tests. */
    long renewals() {
        return renewals;
    }

    private void resize(int size) {
        Object[] old = ring;
        int n = head == tail && old[head] != null ? old.length : (tail - head) & (old.length - 1);
        Object[] fresh = new Object[size];
        if (head + n <= old.length) {
            System.arraycopy(old, head, fresh, 0, n);
        } else {
            int first = old.length - head;
            System.arraycopy(old, head, fresh, 0, first);
            System.arraycopy(old, 0, fresh, first, n - first);
        }
        ring = fresh;
        head = 0;
        tail = n & (size - 1);
    }
}
