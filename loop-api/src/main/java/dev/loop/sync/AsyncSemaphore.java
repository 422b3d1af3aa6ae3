package dev.loop.sync;

import dev.loop.TaskBody;

/**
 * Permits for tasks (asyncio's {@code Semaphore}): {@link #acquire()} takes one, suspending while
 * none is left; {@link #release()} returns one.
 *
 * <p>Fair: a released permit goes straight to the longest waiter, so newcomers cannot take it
 * first. Cancellation-safe: a waiter cancelled after a permit was handed to it passes the permit
 * on.
 *
 * <p>Not thread-safe: use it from the tasks of one loop.
 */
public final class AsyncSemaphore {
    private final Waiters<Void> waiters = new Waiters<>("AsyncSemaphore");
    private int permits;

    /**
     * @throws IllegalArgumentException if {@code permits} is negative
     */
    public AsyncSemaphore(int permits) {
        if (permits < 0) {
            throw new IllegalArgumentException("permits must not be negative: " + permits);
        }
        this.permits = permits;
    }

    /**
     * Takes a permit, suspending until one is free.
     *
     * @throws IllegalStateException outside a task
     */
    public void acquire() {
        Waiters.task("AsyncSemaphore.acquire");
        waiters.loop();
        if (permits > 0 && !waiters.hasWaiters()) {
            permits--;
            return;
        }
        Waiters.await(waiters, waiters.add(), handedOver -> release());
    }

    /** Takes a permit if one is free and nobody waits; never suspends. */
    public boolean tryAcquire() {
        waiters.loop();
        if (permits > 0 && !waiters.hasWaiters()) {
            permits--;
            return true;
        }
        return false;
    }

    /** Returns a permit: to the longest waiter if there is one. */
    public void release() {
        waiters.loop();
        if (!waiters.wakeOne(null)) {
            permits++;
        }
    }

    /** Permits free right now. */
    public int available() {
        return permits;
    }

    /** Runs {@code body} holding a permit. */
    public <T> T withPermit(TaskBody<T> body) throws Exception {
        acquire();
        try {
            return body.call();
        } finally {
            release();
        }
    }

    @Override
    public String toString() {
        return "AsyncSemaphore[permits=" + permits + ", waiters=" + waiters.size() + "]";
    }
}
