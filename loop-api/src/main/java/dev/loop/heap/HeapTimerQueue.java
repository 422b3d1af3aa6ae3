package dev.loop.heap;

import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The default timer strategy: a binary min-heap of nodes ordered by (deadline, sequence). Not
 * thread-safe.
 *
 * <p>Each node keeps its own array index ({@link TimerNode#slot()}), so cancel removes it in
 * O(log n) without a search and without leaving garbage behind (asyncio instead keeps cancelled
 * handles until more than half the heap is garbage; removal at once keeps memory proportional to
 * live timers, and costs the same order as the add that preceded it). The array shrinks when it
 * is mostly empty, so memory falls back after a burst.
 */
public final class HeapTimerQueue implements TimerQueue {
    private static final int INITIAL_CAPACITY = 64;

    private TimerNode[] heap = new TimerNode[INITIAL_CAPACITY];
    private int size;

    @Override
    public void add(TimerNode node) {
        if (node.slot() != -1) {
            throw new IllegalStateException("timer is already in a queue: " + node);
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        siftUp(size++, node);
    }

    @Override
    public boolean remove(TimerNode node) {
        int i = node.slot();
        if (i < 0 || i >= size || heap[i] != node) {
            return false;
        }
        node.slot(-1);
        int last = --size;
        TimerNode moved = heap[last];
        heap[last] = null;
        if (i != last) {
            // The last node fills the hole; it may need to move either way.
            siftDown(i, moved);
            if (heap[i] == moved) {
                siftUp(i, moved);
            }
        }
        maybeShrink();
        return true;
    }

    @Override
    public long nextDeadline() {
        return size == 0 ? NO_DEADLINE : heap[0].deadline();
    }

    @Override
    public int expire(long now, int limit, Consumer<? super TimerNode> sink) {
        int n = 0;
        while (n < limit && size > 0) {
            TimerNode head = heap[0];
            if (head.deadline() > now) {
                break;
            }
            removeHead();
            sink.accept(head);
            n++;
        }
        if (n > 0) {
            maybeShrink();
        }
        return n;
    }

    private void removeHead() {
        TimerNode head = heap[0];
        head.slot(-1);
        int last = --size;
        TimerNode moved = heap[last];
        heap[last] = null;
        if (last > 0) {
            siftDown(0, moved);
        }
    }

    @Override
    public void clear(Consumer<? super TimerNode> sink) {
        TimerNode[] old = heap;
        int n = size;
        heap = new TimerNode[INITIAL_CAPACITY];
        size = 0;
        for (int i = 0; i < n; i++) {
            old[i].slot(-1);
        }
        for (int i = 0; i < n; i++) {
            sink.accept(old[i]);
        }
    }

    @Override
    public int size() {
        return size;
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

    /** Halve the array when a quarter full, so a burst of a million timers does not pin memory. */
    private void maybeShrink() {
        int cap = heap.length;
        if (cap > INITIAL_CAPACITY && size < cap >>> 2) {
            heap = Arrays.copyOf(heap, Math.max(INITIAL_CAPACITY, cap >>> 1));
        }
    }
}
