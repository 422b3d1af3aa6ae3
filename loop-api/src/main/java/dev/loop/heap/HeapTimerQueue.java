package dev.loop.heap;

import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The default timer strategy: a binary min-heap of nodes ordered by (deadline, sequence). Not
 * thread-safe.
 *
 * <p>Each node keeps its own array index ({@link TimerNode#slot()}, always {@code >= 0} while the
 * node is in the heap and {@code -1} once it leaves), so cancel removes it in O(log n) without a
 * search and without leaving garbage behind (asyncio instead keeps cancelled handles until more
 * than half the heap is garbage; removal at once keeps memory proportional to live timers, and
 * costs the same order as the add that preceded it).
 *
 * <p>The array doubles when full and halves when a quarter full, but never below
 * {@link #RETAINED_CAPACITY}: memory falls back after a burst, while a steady flow of a few hundred
 * timers does not reallocate the array each time it drains and fills again.
 *
 * <p>Besides the {@link TimerQueue} operations, the heap offers what a structure built on top of it
 * needs (the {@code wheel} strategy uses one to order the timers of the tick it has reached):
 * {@link #peek()}, {@link #poll()}, {@link #load(TimerNode)} to take a linked chain of nodes in
 * O(k), and {@link #drainTo(TimerNode)} to give them all back as a chain.
 */
public final class HeapTimerQueue implements TimerQueue {
    /** Capacity of the array of a heap made with {@link #HeapTimerQueue()}. */
    public static final int DEFAULT_INITIAL_CAPACITY = 64;

    /**
     * The array shrinks only while it is larger than this (4 KB of references with compressed
     * references), so a heap that once held this many timers keeps room for them: repeated bursts
     * up to this size reuse one array, and only a larger burst's array is given back as it drains.
     */
    public static final int RETAINED_CAPACITY = 1024;

    private final int initialCapacity;
    private TimerNode[] heap;
    private int size;

    /** An empty heap with room for {@value #DEFAULT_INITIAL_CAPACITY} nodes before it grows. */
    public HeapTimerQueue() {
        this(DEFAULT_INITIAL_CAPACITY);
    }

    /**
     * An empty heap with room for {@code initialCapacity} nodes before it grows; {@link #clear} and
     * {@link #drainTo} return it to this capacity.
     *
     * @throws IllegalArgumentException if {@code initialCapacity < 1}
     */
    public HeapTimerQueue(int initialCapacity) {
        if (initialCapacity < 1) {
            throw new IllegalArgumentException("initialCapacity must be at least 1: " + initialCapacity);
        }
        this.initialCapacity = initialCapacity;
        this.heap = new TimerNode[initialCapacity];
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException if the node's {@link TimerNode#slot()} is not {@code -1} (it is
     *     in this or another queue)
     */
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

    /**
     * Adds every node of a chain linked through {@link TimerNode#next()}, ending at {@code null}.
     * Into an empty heap this is a bottom-up heapify, O(k) for k nodes instead of the O(k log k) of
     * k {@link #add}s; into a non-empty one, each node is sifted up as {@link #add} would.
     *
     * <p>The nodes' {@link TimerNode#slot()} values are ignored and overwritten (a caller may have
     * used them for its own bookkeeping, as a wheel does for its buckets), and their
     * {@link TimerNode#prev()}/{@link TimerNode#next()} links are cleared. The caller must make sure
     * none of them is in another queue.
     *
     * @param chain the first node of the chain, or null
     * @return how many nodes were added
     */
    public int load(TimerNode chain) {
        if (size != 0) {
            int n = 0;
            for (TimerNode x = chain; x != null; n++) {
                TimerNode next = x.next();
                x.prev(null);
                x.next(null);
                if (size == heap.length) {
                    heap = Arrays.copyOf(heap, size * 2);
                }
                siftUp(size++, x);
                x = next;
            }
            return n;
        }
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
        // Lists that push at the head (a wheel's buckets) are newest first. Reversed, timers
        // scheduled in order (the usual case: same delay, rising sequence) already form a heap and
        // heapify moves nothing.
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

    /** The earliest node by (deadline, sequence), left in place; null when empty. */
    public TimerNode peek() {
        return size == 0 ? null : heap[0];
    }

    /**
     * Removes and returns the earliest node by (deadline, sequence), whatever its deadline; null when
     * empty. The node leaves with {@link TimerNode#slot()} {@code -1}.
     */
    public TimerNode poll() {
        if (size == 0) {
            return null;
        }
        TimerNode head = removeHead();
        maybeShrink();
        return head;
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

    private TimerNode removeHead() {
        TimerNode head = heap[0];
        head.slot(-1);
        int last = --size;
        TimerNode moved = heap[last];
        heap[last] = null;
        if (last > 0) {
            siftDown(0, moved);
        }
        return head;
    }

    @Override
    public void clear(Consumer<? super TimerNode> sink) {
        TimerNode[] old = heap;
        int n = size;
        heap = new TimerNode[initialCapacity];
        size = 0;
        for (int i = 0; i < n; i++) {
            old[i].slot(-1);
        }
        for (int i = 0; i < n; i++) {
            sink.accept(old[i]);
        }
    }

    /**
     * Empties the heap without calling anything: links every node, in no particular order, in front
     * of {@code chain} through {@link TimerNode#next()} and returns the new first node. Each node
     * leaves with {@link TimerNode#slot()} {@code -1} and {@link TimerNode#prev()} null; the array
     * returns to its initial capacity.
     *
     * @param chain nodes to append after the heap's, or null
     * @return the first node of the combined chain ({@code chain} itself if the heap was empty)
     */
    public TimerNode drainTo(TimerNode chain) {
        TimerNode[] old = heap;
        int n = size;
        heap = new TimerNode[initialCapacity];
        size = 0;
        for (int i = 0; i < n; i++) {
            TimerNode x = old[i];
            x.slot(-1);
            x.prev(null);
            x.next(chain);
            chain = x;
        }
        return chain;
    }

    @Override
    public int size() {
        return size;
    }

    /** Length of the heap's array, for tests and diagnostics that check memory falls back. */
    public int capacity() {
        return heap.length;
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

    /**
     * Halves the array while it is less than a quarter full, but not below
     * {@link #RETAINED_CAPACITY}, so a burst of a million timers does not pin memory and a steady
     * small flow does not reallocate. Halves as often as needed in one copy: {@link #expire} may
     * have taken many nodes since the last check.
     */
    private void maybeShrink() {
        int cap = heap.length;
        if (cap > RETAINED_CAPACITY && size < cap >>> 2) {
            do {
                cap >>>= 1;
            } while (cap > RETAINED_CAPACITY && size < cap >>> 2);
            heap = Arrays.copyOf(heap, Math.max(RETAINED_CAPACITY, cap));
        }
    }
}
