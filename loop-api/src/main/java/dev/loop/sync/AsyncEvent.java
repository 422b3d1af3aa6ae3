package dev.loop.sync;

/**
 * A flag tasks can wait for (asyncio's {@code Event}): {@link #await()} returns at once while it
 * is set, else suspends until {@link #set()}. Setting wakes every task waiting at that moment,
 * even if the event is cleared again before they run.
 *
 * <p>Not thread-safe: use it from the tasks and callbacks of one loop.
 */
public final class AsyncEvent {
    private final Waiters<Void> waiters = new Waiters<>("AsyncEvent");
    private boolean set;

    /** Sets the flag and wakes every waiting task. */
    public void set() {
        if (!set) {
            set = true;
            waiters.wakeAll(null, null);
        }
    }

    /** Clears the flag; tasks already woken by {@link #set()} still run. */
    public void clear() {
        set = false;
    }

    public boolean isSet() {
        return set;
    }

    /**
     * Suspends until the flag is set; returns at once if it is.
     *
     * @throws IllegalStateException outside a task
     */
    public void await() {
        Waiters.task("AsyncEvent.await");
        if (set) {
            return;
        }
        Waiters.await(waiters, waiters.add(), woken -> { });
    }

    @Override
    public String toString() {
        return "AsyncEvent[" + (set ? "set" : "clear") + ", waiters=" + waiters.size() + "]";
    }
}
