package dev.loop.net.stream;

import dev.loop.Loop;
import dev.loop.TimerHandle;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * A connection's idle timeout ({@code ConnectionOptions.idleTimeout}). Not thread-safe: loop
 * thread only. Made only for a connection that has one, so the others pay nothing for it.
 *
 * <p>Re-armed lazily: activity only stamps a time, so the timer costs nothing per read or write;
 * when it fires early it is set again for the time the last activity makes due.
 */
final class IdleTimeout {
    private final StreamConnection connection;
    private final Loop loop;
    private final Duration timeout;
    private long lastActivity;
    private TimerHandle timer; // null until the connection is open, and again once it closed

    IdleTimeout(StreamConnection connection, Loop loop, Duration timeout) {
        this.connection = connection;
        this.loop = loop;
        this.timeout = timeout;
    }

    /** The connection is open: the timeout counts from now. */
    void start() {
        lastActivity = loop.time();
        timer = loop.callLater(timeout, this::check);
    }

    /** Bytes moved: the timeout counts from now. */
    void touch() {
        if (timer != null) {
            lastActivity = loop.time();
        }
    }

    void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void check() {
        if (connection.isClosed()) {
            return;
        }
        long due = lastActivity + timeout.toNanos();
        if (loop.time() - due >= 0) {
            timer = null;
            connection.idledOut(new SocketTimeoutException("connection to " + connection.remote + " idle for "
                    + timeout.toMillis() + " ms"));
        } else {
            timer = loop.callAt(due, this::check);
        }
    }
}
