package dev.loop.sync;

import dev.loop.Promise;
import java.util.concurrent.CancellationException;

/**
 * A condition variable for tasks (asyncio's {@code Condition}), bound to an {@link AsyncLock}:
 * {@link #await()} releases the lock, waits for a {@link #signal()}, and takes the lock back
 * before returning, also when cancelled, so the caller's {@code finally} always runs holding it.
 *
 * <p>Fair and cancellation-safe: signals wake the longest waiters first, and a waiter cancelled
 * after being signalled passes the signal on to the next.
 *
 * <p>Not thread-safe: use it from the tasks of one loop.
 */
public final class AsyncCondition {
    private final AsyncLock lock;
    private final Waiters<Void> waiters = new Waiters<>("AsyncCondition");

    /** A condition on a new lock. */
    public AsyncCondition() {
        this(new AsyncLock());
    }

    public AsyncCondition(AsyncLock lock) {
        this.lock = java.util.Objects.requireNonNull(lock, "lock");
    }

    /** The lock to hold around {@link #await()} and {@link #signal()}. */
    public AsyncLock lock() {
        return lock;
    }

    /**
     * Releases the lock, waits for a signal, re-acquires the lock.
     *
     * @throws IllegalStateException if the current task does not hold the lock
     */
    public void await() {
        Waiters.task("AsyncCondition.await");
        requireHeld("await");
        Promise<Void> w = waiters.add();
        lock.unlock();
        CancellationException cancelled = null;
        try {
            Waiters.await(waiters, w, signalled -> signal(1));
        } catch (CancellationException e) {
            cancelled = e;
        }
        // Back under the lock whatever happened; a cancel during this wait is kept for after.
        for (;;) {
            try {
                lock.lock();
                break;
            } catch (CancellationException e) {
                if (cancelled == null) {
                    cancelled = e;
                }
            }
        }
        AsyncLock.rethrowIfAny(cancelled);
    }

    /** Waits until {@code predicate} holds, re-checking it after every signal. */
    public void awaitUntil(java.util.function.BooleanSupplier predicate) {
        while (!predicate.getAsBoolean()) {
            await();
        }
    }

    /** Wakes the longest waiter. The current task must hold the lock. */
    public void signal() {
        requireHeld("signal");
        signal(1);
    }

    /** Wakes every waiter. The current task must hold the lock. */
    public void signalAll() {
        requireHeld("signalAll");
        waiters.wakeAll(null, null);
    }

    private void signal(int n) {
        for (int i = 0; i < n && waiters.wakeOne(null); i++) {
            // each wakeOne skips waiters cancelled meanwhile
        }
    }

    private void requireHeld(String what) {
        if (!lock.heldBy(AsyncLock.currentTask())) {
            throw new IllegalStateException(what + "() on an AsyncCondition whose lock the current task does not hold");
        }
    }
}
