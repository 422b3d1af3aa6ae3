package dev.loop;

import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * A FIFO of tasks (or callbacks) waiting on a queue or a sync primitive, each behind its own
 * promise, plus the loop the primitive is bound to. Waking means completing the first promise
 * still pending: a waiter cancelled meanwhile is skipped, and a waiter woken but cancelled before
 * it ran hands what it was given back through the primitive, so nothing is ever lost.
 *
 * <p>Not thread-safe: the owning primitive's loop only.
 */
final class Waiters<T> {
    private final ArrayDeque<Promise<T>> queue = new ArrayDeque<>();
    private final String owner;
    private EventLoop loop;

    Waiters(String owner) {
        this.owner = owner;
    }

    /** The loop of the primitive: the first one used from; using it from another is an error. */
    EventLoop loop() {
        EventLoop current = EventLoop.current();
        if (current == null) {
            throw new IllegalStateException(owner + " used outside a loop (thread " + Thread.currentThread().getName()
                    + "): it is not thread-safe; use it from tasks and callbacks of one loop");
        }
        if (loop == null) {
            loop = current;
        } else if (loop != current) {
            throw new IllegalStateException(owner + " belongs to " + loop + " and was used from " + current);
        }
        return loop;
    }

    Promise<T> add() {
        Promise<T> p = loop().newPromise();
        queue.addLast(p);
        return p;
    }

    void remove(Promise<T> p) {
        queue.remove(p);
    }

    /** True if a waiter is still pending (cancelled ones at the head are dropped on the way). */
    boolean hasWaiters() {
        Promise<T> p;
        while ((p = queue.peekFirst()) != null && p.isDone()) {
            queue.pollFirst();
        }
        return p != null;
    }

    int size() {
        int n = 0;
        for (Promise<T> p : queue) {
            if (!p.isDone()) {
                n++;
            }
        }
        return n;
    }

    /** Completes the first pending waiter with {@code value}; false if nobody waits. */
    boolean wakeOne(T value) {
        Promise<T> p;
        while ((p = queue.pollFirst()) != null) {
            if (p.tryComplete(value)) {
                return true;
            }
        }
        return false;
    }

    /** Completes (or, with a failure, fails) every waiter. */
    void wakeAll(T value, Throwable failure) {
        Promise<T> p;
        while ((p = queue.pollFirst()) != null) {
            if (failure == null) {
                p.tryComplete(value);
            } else {
                p.tryFail(failure);
            }
        }
    }

    /**
     * Awaits {@code w} in the current task. If the task is cancelled, {@code w} leaves the queue,
     * and if it had already been woken, {@code onWokenButCancelled} gets its value to pass on.
     */
    static <T> T await(LoopTask<?> t, Waiters<T> from, Promise<T> w, Consumer<T> onWokenButCancelled) {
        try {
            return t.await(w);
        } catch (CancellationException e) {
            if (w.isSuccess()) {
                onWokenButCancelled.accept(w.result());
            } else {
                from.remove(w);
            }
            throw e;
        }
    }
}
