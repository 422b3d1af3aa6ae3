package dev.loop.sync;

import dev.loop.Async;
import dev.loop.Task;
import dev.loop.TaskBody;
import java.util.concurrent.CancellationException;

/**
 * A mutual-exclusion lock for tasks (asyncio's {@code Lock}): {@link #lock()} suspends the task,
 * never the thread. {@code ReentrantLock} and {@code synchronized} cannot do this job, since every
 * task runs on the same loop thread and a JDK lock would let them all in.
 *
 * <p>Fair: the lock passes directly to the longest waiter, so a newcomer can never take it ahead
 * of a waiter already woken. Cancellation-safe: a waiter cancelled before it gets the lock leaves
 * the queue; one cancelled after the lock was handed to it passes it on to the next waiter. Not
 * reentrant.
 *
 * <p>Not thread-safe: use it from the tasks of one loop.
 */
public final class AsyncLock {
    private final Waiters<Void> waiters = new Waiters<>("AsyncLock");
    private boolean locked;
    private Task<?> owner;

    /**
     * Acquires the lock, suspending until it is free.
     *
     * @throws IllegalStateException outside a task, or if this task already holds it
     */
    public void lock() {
        Task<?> t = Waiters.task("AsyncLock.lock");
        waiters.loop();
        if (!locked && !waiters.hasWaiters()) {
            locked = true;
            owner = t;
            return;
        }
        if (owner == t) {
            throw new IllegalStateException("AsyncLock is not reentrant: " + t.name() + " already holds it");
        }
        Waiters.await(waiters, waiters.add(), handedOver -> {
            owner = t; // the lock was ours when the cancel won: give it to the next waiter
            unlock();
        });
        owner = t;
    }

    /** Takes the lock if it is free and nobody waits for it; never suspends. */
    public boolean tryLock() {
        waiters.loop();
        if (locked || waiters.hasWaiters()) {
            return false;
        }
        locked = true;
        owner = currentTask();
        return true;
    }

    /**
     * Releases the lock, handing it to the longest waiter if there is one.
     *
     * @throws IllegalStateException if it is not locked, or held by another task
     */
    public void unlock() {
        if (!locked) {
            throw new IllegalStateException("unlock() of an AsyncLock that is not locked");
        }
        Task<?> t = currentTask();
        if (owner != null && t != null && owner != t) {
            throw new IllegalStateException("unlock() by " + t.name() + " of an AsyncLock held by " + owner.name());
        }
        owner = null;
        if (!waiters.wakeOne(null)) {
            locked = false;
        }
        // else it stays locked: ownership went to the woken waiter, nobody can barge in between
    }

    /** Runs {@code body} holding the lock. */
    public <T> T withLock(TaskBody<T> body) throws Exception {
        lock();
        try {
            return body.call();
        } finally {
            unlock();
        }
    }

    public boolean isLocked() {
        return locked;
    }

    /** True if the current task holds the lock. */
    public boolean isHeldByCurrentTask() {
        return locked && owner != null && owner == currentTask();
    }

    boolean heldBy(Task<?> t) {
        return locked && owner == t;
    }

    @Override
    public String toString() {
        return "AsyncLock[" + (locked ? "locked by " + (owner == null ? "?" : owner.name()) : "unlocked")
                + ", waiters=" + waiters.size() + "]";
    }

    /** The task running this code, or null in a callback. */
    static Task<?> currentTask() {
        return Async.inTask() ? Async.currentTask() : null;
    }

    static void rethrowIfAny(CancellationException c) {
        if (c != null) {
            throw c;
        }
    }
}
