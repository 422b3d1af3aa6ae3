package dev.loop.net.transport;

import dev.loop.TimerHandle;
import dev.loop.engine.Engine;
import java.time.Duration;

/**
 * The reports of one kind of failure that repeats, rate-limited; not thread-safe (loop thread
 * only). Used for what peers and the system cause, not for failures of the program's own code: a
 * server's accept failing at the open-file limit (every {@code TcpServer.ACCEPT_BACKOFF}),
 * TLS handshakes that peers fail (silent clients, plaintext on a TLS port, resets, old protocols),
 * and errors a datagram peer causes (ICMP port unreachable) that no handler of the program takes.
 * A peer can cause those as often as it likes; what it causes must not be a log line each.
 *
 * <p>The first failure is reported at once, in one line: the message and the exception's class
 * and message, without a stack trace (the trace would only show our own code reading a socket).
 * Later ones within {@link #INTERVAL} of the last report are counted, and at the end of the
 * interval one report says how many there were and what the first of them was. When the failing
 * operation works again ({@link #succeeded}), one report says so with the count still untold. So a
 * condition that lasts an hour, or a million hostile connections, costs a few hundred reports, and
 * no failure goes uncounted. Each failure, with its exception, is also logged at DEBUG on
 * {@value #DETAIL_LOGGER}, for whoever wants to see every one.
 *
 * <p>A failure can be about something besides the source (the connection whose handshake failed,
 * of a server that is the source): a report's record then names it in its context, the summary's
 * the first of the failures it counts ({@link Engine#logContext}).
 *
 * <p>Reports go to the loop's exception handler without an exception (so its default logs them at
 * WARNING, without a trace). Reporting never throws ({@link NetRegistry#report}): at the open-file
 * limit even formatting a log record can fail. A report that fails is counted as untold.
 */
public final class RepeatedFailure {
    /** At most one report per this interval, after the first. */
    public static final Duration INTERVAL = Duration.ofSeconds(10);
    /** The logger that has every failure at DEBUG. */
    public static final String DETAIL_LOGGER = "dev.loop.peers";
    /** The most of a peer-influenced exception message a report quotes. */
    private static final int MAX_LINE = 300;
    private static final System.Logger DETAIL = System.getLogger(DETAIL_LOGGER);

    private final NetRegistry net;
    private final Object source;
    private final Runnable summarise = this::summarise;
    private boolean failing;     // failed since the last success
    private long lastReport;     // loop time of the last report, while failing
    private long untold;         // failures since the last report that no report mentioned
    private String firstUntold;  // the one-line description of the first of them
    private Object firstAbout;   // what the first of them was about, for the summary's context
    private TimerHandle timer;   // the summary at the end of the interval, while some are untold

    public RepeatedFailure(NetRegistry net, Object source) {
        this.net = net;
        this.source = source;
    }

    /** The operation failed with {@code error}: reported now, or counted for the interval's summary. */
    public void failed(String message, Throwable error) {
        failed(message, error, null);
    }

    /** As {@link #failed(String, Throwable)}, the failure being about {@code about} (may be null). */
    public void failed(String message, Throwable error, Object about) {
        detail(message, error, about);
        String line = message + ": " + oneLine(error);
        long now = net.loop.time();
        if (failing && now - lastReport < INTERVAL.toNanos()) {
            count(line, now, about);
            return;
        }
        failing = true;
        lastReport = now;
        if (!net.report(line + "; more like it are counted and reported at most once per "
                + INTERVAL.toSeconds() + " s", null, source, about)) {
            count(line, now, about); // the error path itself failed: the summary tells it
        }
    }

    /** True from a failure until the next success. */
    public boolean isFailing() {
        return failing;
    }

    /** The operation worked: if it had been failing, one report says so and how many went untold. */
    public void succeeded(String message) {
        if (!failing) {
            return;
        }
        failing = false;
        cancelTimer();
        long n = untold;
        untold = 0;
        firstUntold = null;
        firstAbout = null;
        net.report(message + (n == 0 ? "" : " (" + n + " more failures since the last report were not reported one by one)"),
                null, source);
    }

    /** The source closes: what is still untold is reported now rather than never. */
    public void close() {
        cancelTimer();
        if (untold > 0) {
            summarise();
        }
    }

    private void count(String line, long now, Object about) {
        if (untold++ == 0) {
            firstUntold = line;
            firstAbout = about;
        }
        if (timer == null) {
            try {
                timer = net.loop.callAt(Math.max(now, lastReport + INTERVAL.toNanos()), summarise);
            } catch (RuntimeException loopClosing) {
                // the loop is closing: close() tells the count
            }
        }
    }

    private void summarise() {
        timer = null;
        long n = untold;
        if (n == 0) {
            return;
        }
        long now = net.loop.time();
        String m = n + " more failure" + (n == 1 ? "" : "s") + " like it in the last " + seconds(now - lastReport)
                + " s (each at DEBUG on " + DETAIL_LOGGER + "); the first: " + firstUntold;
        Object about = firstAbout;
        lastReport = now;
        untold = 0;
        firstUntold = null;
        firstAbout = null;
        if (!net.report(m, null, source, about)) {
            untold = n; // told nobody: the next summary tells it again
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void detail(String message, Throwable error, Object about) {
        try {
            if (DETAIL.isLoggable(System.Logger.Level.DEBUG)) {
                DETAIL.log(System.Logger.Level.DEBUG,
                        Engine.of(net.loop).logContext(about != null ? about : source).line(message), error);
            }
        } catch (Throwable loggingFailed) {
            // the count and the summary still say it happened
        }
    }

    /**
     * {@code error}'s class and message on one line of bounded length: a peer chooses some of the
     * text (the bytes it sent are quoted), so line breaks would let it forge log lines.
     */
    public static String oneLine(Throwable error) {
        String s = String.valueOf(error);
        StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_LINE + 3));
        for (int i = 0; i < s.length() && b.length() < MAX_LINE; i++) {
            char c = s.charAt(i);
            b.append(Character.isISOControl(c) ? ' ' : c);
        }
        if (s.length() > MAX_LINE) {
            b.append("...");
        }
        return b.toString();
    }

    private static long seconds(long nanos) {
        return Math.max(1, Math.round(nanos / 1e9));
    }
}
