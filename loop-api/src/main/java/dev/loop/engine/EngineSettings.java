package dev.loop.engine;

/**
 * What an {@link Engine} is told when it is made.
 *
 * @param backendName           the backend's name, for messages
 * @param timersName            the timer strategy's name, for messages
 * @param debug                 wrap callbacks to remember where they were scheduled, log slow ones
 * @param slowCallbackNanos     in debug mode, callbacks (and task turns) at least this slow are logged
 * @param maxTimersPerIteration due timers moved to the ready queue per iteration at most
 * @param maxInboxPerIteration  submissions from other threads taken per drain at most
 */
public record EngineSettings(String backendName, String timersName, boolean debug, long slowCallbackNanos,
                             int maxTimersPerIteration, int maxInboxPerIteration) {
}
