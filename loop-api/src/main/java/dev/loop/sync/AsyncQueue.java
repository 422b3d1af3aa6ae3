package dev.loop.sync;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A FIFO queue between tasks (asyncio's {@code Queue}), unbounded or bounded: {@link #put}
 * suspends while it is full and {@link #take} while it is empty; {@link #offer} and {@link #poll}
 * never suspend; {@link #putAsync} and {@link #takeAsync} give futures to callback code.
 *
 * <p>Guarantees: waiters are served first come, first served; an item is handed straight to the
 * longest-waiting taker, so a newcomer cannot take it first; a taker cancelled after an item was
 * handed to it gives the item back to the head of the queue, and a putter cancelled after a slot
 * was kept for it passes the slot on, so nothing is lost or reordered. {@link #close()} lets takers
 * drain what is queued, then they get {@link QueueClosedException}; putters get it at once.
 *
 * <p>Variants (LIFO, priority) override the storage hooks {@link #store}, {@link #retrieve},
 * {@link #storeFirst} and {@link #stored}, as asyncio's {@code _put}/{@code _get}.
 *
 * <p>Not thread-safe: use it from the tasks and callbacks of one loop.
 *
 * @param <T> the items; null is not allowed
 */
public class AsyncQueue<T> {
    private final int capacity;
    private final ArrayDeque<T> items = new ArrayDeque<>();
    private final Waiters<T> takers = new Waiters<>("AsyncQueue");
    private final ArrayDeque<Putter<T>> putters = new ArrayDeque<>();
    /** Slots kept for woken putters that have not put their item yet: not free for newcomers. */
    private int reserved;
    private boolean closed;

    /** A waiting putter: a task (item null, it puts after waking) or a {@link #putAsync} caller. */
    private record Putter<T>(Promise<Void> promise, T item) { }

    /** An unbounded queue. */
    public AsyncQueue() {
        this(Integer.MAX_VALUE);
    }

    /**
     * A queue holding at most {@code capacity} items.
     *
     * @throws IllegalArgumentException if {@code capacity} is less than 1
     */
    public AsyncQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
    }

    // ------------------------------------------------------------------ storage hooks

    /** Adds an item to the storage (FIFO: at the tail). */
    protected void store(T item) {
        items.addLast(item);
    }

    /** Removes the next item from non-empty storage (FIFO: the head). */
    protected T retrieve() {
        return items.pollFirst();
    }

    /** Puts back an item a cancelled taker had been given, to be the next one taken. */
    protected void storeFirst(T item) {
        items.addFirst(item);
    }

    /** Items in the storage. */
    protected int stored() {
        return items.size();
    }

    // ------------------------------------------------------------------ putting

    /**
     * Adds {@code item} if there is room and no putter is waiting; never suspends.
     *
     * @return false if full
     * @throws QueueClosedException if the queue is closed
     */
    public boolean offer(T item) {
        Objects.requireNonNull(item, "item");
        takers.loop();
        checkOpen();
        if (!hasRoom()) {
            return false;
        }
        deliver(item);
        return true;
    }

    /**
     * Adds {@code item}, suspending the task while the queue is full.
     *
     * @throws QueueClosedException if the queue is closed, or closes while this waits
     */
    public void put(T item) {
        Objects.requireNonNull(item, "item");
        Waiters.task("AsyncQueue.put");
        if (offer(item)) {
            return;
        }
        Promise<Void> w = takers.loop().newPromise();
        Putter<T> p = new Putter<>(w, null);
        putters.addLast(p);
        try {
            Async.await(w);
        } catch (java.util.concurrent.CancellationException e) {
            if (w.isSuccess()) {
                reserved--; // woken with a slot kept for us: hand it on
                wakePutters();
            } else {
                putters.remove(p);
            }
            throw e;
        }
        reserved--;
        deliver(item); // admitted before any close: still delivered
        closeIfDrained();
    }

    /**
     * A future done once {@code item} is in the queue (at once if there is room), or failed with
     * {@link QueueClosedException}. Cancelling it withdraws the item if it is still waiting.
     */
    public LoopFuture<Void> putAsync(T item) {
        Objects.requireNonNull(item, "item");
        Promise<Void> w = takers.loop().newPromise();
        if (closed) {
            w.fail(closedException());
        } else if (hasRoom()) {
            deliver(item);
            w.complete(null);
        } else {
            putters.addLast(new Putter<>(w, item));
        }
        return w;
    }

    // ------------------------------------------------------------------ taking

    /** The next item, or null if none is queued; never suspends. */
    public T poll() {
        takers.loop();
        if (stored() == 0) {
            return null;
        }
        T item = retrieve();
        wakePutters();
        return item;
    }

    /**
     * The next item, suspending the task while the queue is empty.
     *
     * @throws QueueClosedException once the queue is closed and empty
     */
    public T take() {
        Waiters.task("AsyncQueue.take");
        T item = poll();
        if (item != null) {
            return item;
        }
        if (closed && reserved == 0) {
            throw closedException();
        }
        return Waiters.await(takers, takers.add(), this::giveBack);
    }

    /**
     * A future of the next item: done at once if one is queued, else when one is put; failed with
     * {@link QueueClosedException} once the queue is closed and empty. Cancelling it withdraws
     * the request.
     */
    public LoopFuture<T> takeAsync() {
        Loop loop = takers.loop();
        T item = poll();
        if (item != null) {
            Promise<T> p = loop.newPromise();
            p.complete(item);
            return p;
        }
        if (closed && reserved == 0) {
            Promise<T> p = loop.newPromise();
            p.fail(closedException());
            return p;
        }
        return takers.add();
    }

    // ------------------------------------------------------------------ closing and state

    /**
     * Closes the queue: putters waiting or arriving get {@link QueueClosedException}; takers get
     * the items still queued, then the exception. Idempotent.
     */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Putter<T> p;
        while ((p = putters.pollFirst()) != null) {
            p.promise.tryFail(closedException());
        }
        closeIfDrained();
    }

    public boolean isClosed() {
        return closed;
    }

    public int size() {
        return stored();
    }

    public boolean isEmpty() {
        return stored() == 0;
    }

    /** True if an offer would fail now. */
    public boolean isFull() {
        return !hasRoom();
    }

    /** The most items it holds; {@link Integer#MAX_VALUE} when unbounded. */
    public int capacity() {
        return capacity;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[size=" + stored() + (capacity == Integer.MAX_VALUE ? "" : "/" + capacity)
                + ", takers=" + takers.size() + ", putters=" + putters.size() + (closed ? ", closed" : "") + "]";
    }

    // ------------------------------------------------------------------ internals

    private boolean hasRoom() {
        return putters.isEmpty() && stored() + reserved < capacity;
    }

    /** To the longest-waiting taker if there is one, else into storage. */
    private void deliver(T item) {
        if (stored() > 0 || !takers.wakeOne(item)) {
            store(item);
        }
    }

    /** A cancelled taker's item: to the next taker, or back to the head. */
    private void giveBack(T item) {
        if (!takers.wakeOne(item)) {
            storeFirst(item);
        }
    }

    /** Fills free slots from waiting putters, in order; slots for tasks are kept until they run. */
    private void wakePutters() {
        Putter<T> p;
        while (stored() + reserved < capacity && (p = putters.pollFirst()) != null) {
            if (p.item != null) {
                if (p.promise.tryComplete(null)) {
                    deliver(p.item);
                }
            } else if (p.promise.tryComplete(null)) {
                reserved++;
            }
        }
        closeIfDrained();
    }

    private void closeIfDrained() {
        if (closed && stored() == 0 && reserved == 0) {
            takers.wakeAll(null, closedException());
        }
    }

    private QueueClosedException closedException() {
        return new QueueClosedException("the queue is closed" + (stored() > 0 ? "" : " and empty"));
    }

    private void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }
}
