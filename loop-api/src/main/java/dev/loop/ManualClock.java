package dev.loop;

import dev.loop.spi.LoopClock;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A clock that moves only when told to, for tests: {@link #advance} from any thread, or, with
 * {@link #autoAdvancing()}, by itself to the next timer whenever the loop has nothing else to do
 * (asyncio's test loop, Tokio's paused clock). A loop on a manual clock never sleeps on a timer for
 * real. Thread-safe.
 */
public final class ManualClock implements LoopClock {
    private volatile long now;
    private final boolean autoAdvance;
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();

    private ManualClock(long start, boolean autoAdvance) {
        this.now = start;
        this.autoAdvance = autoAdvance;
    }

    /** A clock at time 0 that moves only through {@link #advance}. */
    public static ManualClock create() {
        return new ManualClock(0, false);
    }

    /** A clock at time 0 that jumps to the next timer whenever its loop is idle. */
    public static ManualClock autoAdvancing() {
        return new ManualClock(0, true);
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public boolean isReal() {
        return false;
    }

    @Override
    public boolean idle(long deadlineNanos) {
        if (!autoAdvance || deadlineNanos == Long.MAX_VALUE) {
            return false;
        }
        synchronized (this) {
            if (deadlineNanos > now) {
                now = deadlineNanos;
            }
        }
        return true;
    }

    /** Moves the clock forward and wakes every loop using it. */
    public void advance(Duration by) {
        advanceNanos(by.toNanos());
    }

    public void advanceNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("a clock cannot move backwards: advanceNanos(" + nanos + ")");
        }
        synchronized (this) {
            now += nanos;
        }
        for (Runnable r : listeners) {
            r.run();
        }
    }

    @Override
    public AutoCloseable onAdvance(Runnable wakeup) {
        listeners.add(wakeup);
        return () -> listeners.remove(wakeup);
    }
}
