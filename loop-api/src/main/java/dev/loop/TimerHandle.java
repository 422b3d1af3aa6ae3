package dev.loop;

/** A scheduled timer ({@link Loop#callLater}, {@link Loop#callAt}). Safe to use from any thread. */
public interface TimerHandle {
    /**
     * Prevents the timer from running. Cheap: O(1) off the loop thread, and the timer's memory is
     * released in the loop's next iteration at the latest.
     *
     * @return true if this call cancelled it; false if it had already run, started, or been cancelled
     */
    boolean cancel();

    boolean isCancelled();

    /** The loop time at which the timer is due. */
    long deadline();
}
