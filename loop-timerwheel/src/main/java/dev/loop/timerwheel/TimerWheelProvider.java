package dev.loop.timerwheel;

import dev.loop.spi.TimerQueue;
import dev.loop.spi.TimerQueueProvider;

/**
 * {@code wheel}: the hierarchical timing wheel ({@link TimerWheel}), selected per loop with
 * {@code LoopOptions.withTimers("wheel")} or {@code -Dloop.timers=wheel}. Its priority is below the
 * heap's, so the heap stays the default when nothing is selected.
 *
 * <p>Each new queue reads its shape from system properties: {@value #TICK_PROPERTY} (nanoseconds
 * per tick, default {@value TimerWheel#DEFAULT_TICK_NANOS}) and {@value #SIZE_PROPERTY} (buckets per
 * level, a power of two, default {@value TimerWheel#DEFAULT_WHEEL_SIZE}). A malformed value makes
 * the provider unavailable with a message naming the property, rather than silently using a default.
 */
public final class TimerWheelProvider implements TimerQueueProvider {
    /** The name loops select it by. */
    public static final String NAME = "wheel";
    /** Below the heap's 100: the wheel is chosen explicitly, never by default. */
    public static final int PRIORITY = 50;
    /** System property: tick width in nanoseconds. */
    public static final String TICK_PROPERTY = "loop.wheel.tickNanos";
    /** System property: buckets per level (a power of two). */
    public static final String SIZE_PROPERTY = "loop.wheel.size";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Throwable unavailabilityCause() {
        try {
            newTimerQueue();
            return null;
        } catch (IllegalArgumentException e) {
            return e;
        }
    }

    /**
     * A wheel shaped by the system properties (read on every call).
     *
     * @throws IllegalArgumentException if a property is malformed or out of range
     */
    @Override
    public TimerQueue newTimerQueue() {
        long tick = longProperty(TICK_PROPERTY, TimerWheel.DEFAULT_TICK_NANOS);
        long size = longProperty(SIZE_PROPERTY, TimerWheel.DEFAULT_WHEEL_SIZE);
        try {
            return new TimerWheel(tick, (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, size)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad timer wheel settings (-D" + TICK_PROPERTY + "=" + tick + ", -D"
                    + SIZE_PROPERTY + "=" + size + "): " + e.getMessage(), e);
        }
    }

    private static long longProperty(String name, long fallback) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + name + " must be a whole number: '" + v + "'", e);
        }
    }
}
