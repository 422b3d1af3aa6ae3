package dev.loop.spi;

/**
 * The time source of a loop, injectable so that tests of timers and timeouts never sleep for
 * real (see {@link ManualClock}).
 */
public interface LoopClock {
    /** Monotonic nanoseconds. */
    long nanoTime();

    /** The JVM's {@link System#nanoTime()}. */
    static LoopClock system() {
        return SystemClock.INSTANCE;
    }

    /**
     * False for a clock that does not follow real time: the loop then never blocks on a timer for
     * real, and relies on {@link #idle} and {@link #onAdvance}.
     */
    default boolean isReal() {
        return true;
    }

    /**
     * Called by a loop with nothing to do before {@code deadlineNanos} (its next timer). A virtual
     * clock that advances by itself when the loop is idle moves to the deadline and returns true.
     * A real clock returns false and the loop sleeps.
     */
    default boolean idle(long deadlineNanos) {
        return false;
    }

    /**
     * Registers a loop's wake-up, called whenever a non-real clock moves, so a loop blocked until
     * woken sees its timers fall due. Returns a handle that unregisters it.
     */
    default AutoCloseable onAdvance(Runnable wakeup) {
        return () -> { };
    }
}

enum SystemClock implements LoopClock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}
