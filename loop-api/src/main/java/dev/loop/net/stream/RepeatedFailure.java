package dev.loop.net.stream;

import dev.loop.net.transport.NetRegistry;
import java.time.Duration;

/**
 * The reports of one failure that repeats (a server's accept failing at the open-file limit, every
 * {@link TcpServer#ACCEPT_BACKOFF}), rate-limited; not thread-safe (loop thread only).
 *
 * <p>The first failure is reported at once; later ones at most once per {@link #INTERVAL}, each
 * record saying how many were not reported since the previous one; and when the failing operation
 * works again, one record says so with the count still untold. So a condition that lasts an hour
 * costs a few hundred records, not tens of thousands, and no failure goes uncounted.
 *
 * <p>Reporting never throws ({@link NetRegistry#report}): at the open-file limit even formatting a
 * log record can fail. A report that fails is counted as not reported.
 */
final class RepeatedFailure {
    /** At most one record per this interval, after the first. */
    static final Duration INTERVAL = Duration.ofSeconds(10);

    private final NetRegistry net;
    private final Object source;
    private boolean failing;   // failed since the last success
    private long lastReport;   // loop time of the last record, while failing
    private long untold;       // failures since the last record that no record mentioned

    RepeatedFailure(NetRegistry net, Object source) {
        this.net = net;
        this.source = source;
    }

    /** The operation failed with {@code error}: reported now, or counted for the next record. */
    void failed(String message, Throwable error) {
        long now = net.loop.time();
        if (failing && now - lastReport < INTERVAL.toNanos()) {
            untold++;
            return;
        }
        String m = untold == 0 ? message
                : message + " (" + untold + " more failures like it in the last " + seconds(now - lastReport) + " s were not logged)";
        failing = true;
        lastReport = now;
        untold = 0;
        if (!net.report(m, error, source)) {
            untold = 1; // the error path itself failed: count it for the next record
        }
    }

    /** True from a failure until the next success. */
    boolean isFailing() {
        return failing;
    }

    /** The operation worked: if it had been failing, one record says so and how many went untold. */
    void succeeded(String message) {
        if (!failing) {
            return;
        }
        failing = false;
        long n = untold;
        untold = 0;
        net.report(message + (n == 0 ? "" : " (" + n + " more failures since the last record were not logged)"), null, source);
    }

    private static long seconds(long nanos) {
        return Math.max(1, Math.round(nanos / 1e9));
    }
}
