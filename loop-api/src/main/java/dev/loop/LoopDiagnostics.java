package dev.loop;

/**
 * A snapshot of a loop's bookkeeping, for monitoring and tests ({@link Loop#diagnostics()}). Exact
 * when taken on the loop thread or while the loop is not running; from another thread the counts
 * may be a moment old.
 *
 * @param iterations     iterations run so far
 * @param readyCallbacks callbacks ready to run in the next iteration
 * @param pendingTimers  timers queued (cancelled ones leave the queue at once, or at the next
 *                       iteration when cancelled from another thread)
 * @param liveTasks      tasks started and not finished
 * @param taskMechanism  how tasks suspend: {@code continuation} or {@code threads}; {@code none}
 *                       until the loop's first task chose it
 * @param failedReports  errors the loop could neither hand to its exception handler nor log (the
 *                       handler threw and then logging failed too); each also printed a fixed
 *                       line on standard error. Zero unless logging itself is broken.
 */
public record LoopDiagnostics(long iterations, int readyCallbacks, int pendingTimers, int liveTasks,
                              String taskMechanism, long failedReports) {
}
