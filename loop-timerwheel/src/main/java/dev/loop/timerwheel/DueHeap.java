package dev.loop.timerwheel;

import dev.loop.spi.TimerNode;
import java.util.Arrays;

/**
 * The wheel's "due" stage: a binary min-heap, ordered by (deadline, sequence), of the timers whose
 * tick the wheel has already reached. Not thread-safe.
 *
 * <p>A wheel bucket knows only that its timers share a tick; the heap is what turns one tick's
 * timers into strict (deadline, sequence) order, and what lets {@link TimerWheel#expire} stop in
 * the middle of a tick (at {@code now}, or at the caller's limit) and resume later. It holds at most
 * one tick's timers plus the ones added with a deadline in a tick already reached, so it is small
 * in steady state; after a burst (a hundred thousand timers in one tick) its array halves as it
 * drains, back to at most {@link #RETAINED_CAPACITY}.
 *
 * <p>A node in the heap keeps its array index in {@link TimerNode#slot()} (always {@code >= 0} here;
 * the wheel's own slot codes are negative), so removal needs no search.
 */
final class DueHeap {
    /** Capacity of a new heap. */
    static final int INITIAL_CAPACITY = 16;

    /**
     * The array shrinks only above this capacity (4 KB of references), so a steady few hundred
     * timers per tick do not reallocate it every tick, while a burst's array is given back.
     */
    static final int RETAINED_CAPACITY = 1024;

    private TimerNode[] heap = new TimerNode[INITIAL_CAPACITY];
    private int size;

    int size() {
        return size;
    }

    /** The array length, for tests that check memory falls back. */
    int capacity() {
        return heap.length;
    }

    /** The earliest node, or null when empty. */
    TimerNode peek() {
        return size == 0 ? null : heap[0];
    }

    void add(TimerNode node) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        siftUp(size++, node);
    }

    /**
     * Takes every node of a bucket chain (linked through {@link TimerNode#next()}) into the empty
     * heap and orders them in O(k) with a bottom-up heapify, instead of k sift-ups.
     *
     * @return how many nodes were loaded
     */
    int load(TimerNode chain) {
        assert size == 0 : "load into a non-empty heap";
        int n = 0;
        for (TimerNode x = chain; x != null; ) {
            TimerNode next = x.next();
            x.prev(null);
            x.next(null);
            if (n == heap.length) {
                heap = Arrays.copyOf(heap, n * 2);
            }
            heap[n++] = x;
            x = next;
        }
        // Buckets push at the head, so the chain is newest first. Reversed, timers scheduled in
        // order (the usual case: same delay, rising sequence) already form a heap and heapify
        // moves nothing.
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            TimerNode t = heap[i];
            heap[i] = heap[j];
            heap[j] = t;
        }
        size = n;
        for (int i = 0; i < n; i++) {
            heap[i].slot(i);
        }
        for (int i = (n >>> 1) - 1; i >= 0; i--) {
            siftDown(i, heap[i]);
        }
        return n;
    }

    /** Removes and returns the earliest node; the heap must not be empty. */
    TimerNode poll() {
        TimerNode head = heap[0];
        int last = --size;
        TimerNode moved = heap[last];
        heap[last] = null;
        if (last > 0) {
            siftDown(0, moved);
        }
        head.slot(-1);
        maybeShrink();
        return head;
    }

    /** Removes {@code node} if it is in this heap at the index it claims. */
    boolean remove(TimerNode node) {
        int i = node.slot();
        if (i < 0 || i >= size || heap[i] != node) {
            return false;
        }
        int last = --size;
        TimerNode moved = heap[last];
        heap[last] = null;
        if (i != last) {
            // The last node fills the hole and may belong above or below it.
            siftDown(i, moved);
            if (heap[i] == moved) {
                siftUp(i, moved);
            }
        }
        node.slot(-1);
        maybeShrink();
        return true;
    }

    /**
     * Empties the heap onto the front of {@code chain} (linked through {@link TimerNode#next()})
     * and returns the new chain; the nodes' slots are left for the caller to reset.
     */
    TimerNode drainTo(TimerNode chain) {
        for (int i = 0; i < size; i++) {
            heap[i].next(chain);
            chain = heap[i];
        }
        heap = new TimerNode[INITIAL_CAPACITY];
        size = 0;
        return chain;
    }

    private void siftUp(int i, TimerNode node) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            TimerNode p = heap[parent];
            if (!node.before(p)) {
                break;
            }
            heap[i] = p;
            p.slot(i);
            i = parent;
        }
        heap[i] = node;
        node.slot(i);
    }

    private void siftDown(int i, TimerNode node) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            TimerNode c = heap[child];
            int right = child + 1;
            if (right < size && heap[right].before(c)) {
                child = right;
                c = heap[right];
            }
            if (!c.before(node)) {
                break;
            }
            heap[i] = c;
            c.slot(i);
            i = child;
        }
        heap[i] = node;
        node.slot(i);
    }

    /** Halves a large array when it is a quarter full, so a one-tick burst does not pin memory. */
    private void maybeShrink() {
        int cap = heap.length;
        if (cap > RETAINED_CAPACITY && size < cap >>> 2) {
            heap = Arrays.copyOf(heap, Math.max(RETAINED_CAPACITY, cap >>> 1));
        }
    }
}
