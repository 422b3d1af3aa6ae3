package dev.loop.sync;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.Task;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * A FIFO of tasks (or callbacks) waiting on a queue or a sync primitive, each behind its own
 * promise, plus the loop the primitive is bound to. Waking means completing the first promise
 * still pending: a waiter cancelled meanwhile is skipped, and a waiter woken but cancelled before
 * it ran hands what it was given back through the primitive, so nothing is ever lost.
 *
 * <p>Built on the public API only ({@link Loop#current()}, {@link Async#await}): the primitives of
 * this package are what any user could write on the loop.
 *
 * <p>Not thread-safe: the owning primitive's loop only.
 */
final class Waiters<T> {
    private final ArrayDeque<Promise<T>> queue = new ArrayDeque<>();
    private final String owner;
    private Loop loop;

    Waiters(String owner) {
        this.owner = owner;
    }

    /** The loop of the primitive: the first one used from; using it from another is an error. */
    Loop loop() {
        Loop current;
        try {
            current = Loop.current();
        } catch (IllegalStateException outside) {
            throw new IllegalStateException(owner + " used outside a loop (thread " + Thread.currentThread().getName()
                    + "): it is not thread-safe; use it from tasks and callbacks of one loop", outside);
        }
        if (loop == null) {
            loop = current;
        } else if (loop != current) {
            throw new IllegalStateException(owner + " belongs to " + loop + " and was used from " + current);
        }
        return loop;
    }

    /** The task calling {@code what}, which suspends it. */
    static Task<?> task(String what) {
        if (!Async.inTask()) {
            throw new IllegalStateException(what + "() called outside a task (thread " + Thread.currentThread().getName()
                    + "): it suspends the current task, so call it from code started with Loop.spawn or Loop.run");
        }
        return Async.currentTask();
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
    static <T> T await(Waiters<T> from, Promise<T> w, Consumer<T> onWokenButCancelled) {
        try {
            return Async.await(w);
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
