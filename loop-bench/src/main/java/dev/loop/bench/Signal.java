package dev.loop.bench;

/**
 * A completion flag the loop thread raises and a benchmark thread waits for, reusable without
 * allocating. One waiter per signal; the loop is its only writer.
 *
 * <p>The waiter spins briefly, then yields: on a two-core machine a waiter that never yields would
 * steal the core the loop under test needs. Every implementation measured waits the same way.
 */
final class Signal implements Runnable {
    private static final int SPINS_BEFORE_YIELD = 1_000;

    private volatile long raised;
    private long awaited; // waiter thread only

    /** Raises the signal; called on the loop thread. */
    @Override
    public void run() {
        raised = raised + 1; // single writer: a plain read-modify-write of the volatile is enough
    }

    /** Waits until the loop has raised the signal once more since the last await. */
    void await() {
        long target = ++awaited;
        int spins = 0;
        while (raised < target) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
