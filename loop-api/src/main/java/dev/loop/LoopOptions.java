package dev.loop;

import dev.loop.spi.LoopClock;
import java.time.Duration;
import java.util.Objects;

/**
 * How to open a loop: which backend and timer strategy (null: decided by system property,
 * environment, then priority; see {@link Loops}), debug mode, the clock, and the fairness limits.
 * Immutable; each {@code with...} returns a copy.
 *
 * @param backend               backend name ({@code select}, {@code epoll}), or null
 * @param timers                timer strategy name ({@code heap}, {@code wheel}), or null
 * @param debug                 log slow callbacks with where they were scheduled, report failed
 *                              futures nobody looked at
 * @param clock                 the loop's time source
 * @param slowCallbackThreshold in debug mode, callbacks at least this slow are logged
 * @param maxTimersPerIteration due timers moved to the ready queue per iteration at most, so a
 *                              burst of timers cannot starve I/O (Agrona's expiry limit)
 * @param maxInboxPerIteration  callbacks taken from other threads per drain at most, so a flooding
 *                              producer cannot starve the loop's own work
 * @param taskMechanism         how tasks suspend: {@code continuation}, {@code threads} or
 *                              {@code auto}; null: the system property {@value #TASKS_PROPERTY},
 *                              else {@code auto} (continuations when the JVM exports them)
 */
public record LoopOptions(String backend, String timers, boolean debug, LoopClock clock,
                          Duration slowCallbackThreshold, int maxTimersPerIteration, int maxInboxPerIteration,
                          String taskMechanism) {

    /** The system property that chooses the task mechanism when the options do not. */
    public static final String TASKS_PROPERTY = "loop.tasks.mechanism";

    public static final Duration DEFAULT_SLOW_CALLBACK_THRESHOLD = Duration.ofMillis(100);
    public static final int DEFAULT_MAX_TIMERS_PER_ITERATION = 4096;
    public static final int DEFAULT_MAX_INBOX_PER_ITERATION = 65_536;

    public LoopOptions {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(slowCallbackThreshold, "slowCallbackThreshold");
        if (slowCallbackThreshold.isNegative()) {
            throw new IllegalArgumentException("slowCallbackThreshold must not be negative: " + slowCallbackThreshold);
        }
        if (maxTimersPerIteration < 1) {
            throw new IllegalArgumentException("maxTimersPerIteration must be at least 1: " + maxTimersPerIteration);
        }
        if (maxInboxPerIteration < 1) {
            throw new IllegalArgumentException("maxInboxPerIteration must be at least 1: " + maxInboxPerIteration);
        }
    }

    /** Best available backend, default timers, no debug, the system clock. */
    public static LoopOptions defaults() {
        return new LoopOptions(null, null, false, LoopClock.system(), DEFAULT_SLOW_CALLBACK_THRESHOLD,
                DEFAULT_MAX_TIMERS_PER_ITERATION, DEFAULT_MAX_INBOX_PER_ITERATION, null);
    }

    public LoopOptions withBackend(String name) {
        return new LoopOptions(name, timers, debug, clock, slowCallbackThreshold, maxTimersPerIteration, maxInboxPerIteration, taskMechanism);
    }

    public LoopOptions withTimers(String name) {
        return new LoopOptions(backend, name, debug, clock, slowCallbackThreshold, maxTimersPerIteration, maxInboxPerIteration, taskMechanism);
    }

    public LoopOptions withDebug(boolean on) {
        return new LoopOptions(backend, timers, on, clock, slowCallbackThreshold, maxTimersPerIteration, maxInboxPerIteration, taskMechanism);
    }

    public LoopOptions withClock(LoopClock c) {
        return new LoopOptions(backend, timers, debug, c, slowCallbackThreshold, maxTimersPerIteration, maxInboxPerIteration, taskMechanism);
    }

    public LoopOptions withSlowCallbackThreshold(Duration d) {
        return new LoopOptions(backend, timers, debug, clock, d, maxTimersPerIteration, maxInboxPerIteration, taskMechanism);
    }

    public LoopOptions withMaxTimersPerIteration(int n) {
        return new LoopOptions(backend, timers, debug, clock, slowCallbackThreshold, n, maxInboxPerIteration, taskMechanism);
    }

    public LoopOptions withMaxInboxPerIteration(int n) {
        return new LoopOptions(backend, timers, debug, clock, slowCallbackThreshold, maxTimersPerIteration, n, taskMechanism);
    }

    /** Tasks suspend with {@code mechanism}: {@code continuation}, {@code threads} or {@code auto}. */
    public LoopOptions withTaskMechanism(String mechanism) {
        return new LoopOptions(backend, timers, debug, clock, slowCallbackThreshold, maxTimersPerIteration,
                maxInboxPerIteration, mechanism);
    }
}
