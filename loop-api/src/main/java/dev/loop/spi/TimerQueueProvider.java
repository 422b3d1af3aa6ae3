package dev.loop.spi;

/**
 * A timer strategy found through {@link java.util.ServiceLoader}: {@code heap} ships with
 * {@code loop-api}, {@code wheel} with {@code loop-timerwheel}.
 */
public interface TimerQueueProvider {
    /** The name users select it by ({@code -Dloop.timers=NAME}); lower case, no spaces. */
    String name();

    /** Higher wins when nothing is selected explicitly. */
    int priority();

    /** Why this strategy cannot be used here, or {@code null} when it can. */
    default Throwable unavailabilityCause() {
        return null;
    }

    /** A new, empty queue for one loop. */
    TimerQueue newTimerQueue();
}
