package dev.loop.examples.http;

import java.time.Duration;

/**
 * What the HTTP server accepts, and how long it waits. Every phase a client controls has a deadline
 * of its own, counted from the phase's start rather than from the last byte, so a client trickling
 * one byte at a time gains nothing by it.
 *
 * @param maxRequestLine bytes of the request line, line ending excluded; longer: 414
 * @param maxHeadBytes   bytes of the whole head (request line, headers, blank line); more: 431
 * @param maxHeaders     header fields per request; more: 431
 * @param maxBody        bytes of a request body, declared or chunked; more: 413
 * @param idleTimeout    a keep-alive connection with no request begun is closed after this long;
 *                       so is one whose client has not read what it was sent for this long (with
 *                       a reset)
 * @param headTimeout    a request head must be complete this long after its first byte arrived
 *                       (nginx's client_header_timeout, as a whole); else 408 and close
 * @param bodyTimeout    a request body must be complete this long after its head was; else 408
 * @param lingerTimeout  after refusing a request the server stops sending and reads, discarding,
 *                       for at most this long before it closes, so the client gets the answer
 *                       rather than a reset for the bytes it was still sending
 */
public record HttpLimits(int maxRequestLine, int maxHeadBytes, int maxHeaders, long maxBody, Duration idleTimeout,
                         Duration headTimeout, Duration bodyTimeout, Duration lingerTimeout) {

    public HttpLimits {
        if (maxRequestLine < 16 || maxHeadBytes < maxRequestLine || maxHeaders < 1 || maxBody < 0) {
            throw new IllegalArgumentException("need maxRequestLine >= 16, maxHeadBytes >= maxRequestLine,"
                    + " maxHeaders >= 1, maxBody >= 0: " + maxRequestLine + ", " + maxHeadBytes + ", "
                    + maxHeaders + ", " + maxBody);
        }
        if (!positive(idleTimeout) || !positive(headTimeout) || !positive(bodyTimeout) || lingerTimeout.isNegative()) {
            throw new IllegalArgumentException("idle, head and body timeouts must be positive and the linger timeout"
                    + " not negative: idle " + idleTimeout + ", head " + headTimeout + ", body " + bodyTimeout
                    + ", linger " + lingerTimeout);
        }
    }

    private static boolean positive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    /** 8 KiB request line, 16 KiB head, 100 headers, 1 MiB body; 30 s idle, 10 s head, 30 s body, 2 s linger. */
    public static HttpLimits defaults() {
        return new HttpLimits(8 * 1024, 16 * 1024, 100, 1024 * 1024, Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ofSeconds(30), Duration.ofSeconds(2));
    }

    public HttpLimits withIdleTimeout(Duration d) {
        return new HttpLimits(maxRequestLine, maxHeadBytes, maxHeaders, maxBody, d, headTimeout, bodyTimeout,
                lingerTimeout);
    }

    public HttpLimits withHeadTimeout(Duration d) {
        return new HttpLimits(maxRequestLine, maxHeadBytes, maxHeaders, maxBody, idleTimeout, d, bodyTimeout,
                lingerTimeout);
    }

    public HttpLimits withBodyTimeout(Duration d) {
        return new HttpLimits(maxRequestLine, maxHeadBytes, maxHeaders, maxBody, idleTimeout, headTimeout, d,
                lingerTimeout);
    }

    public HttpLimits withMaxBody(long bytes) {
        return new HttpLimits(maxRequestLine, maxHeadBytes, maxHeaders, bytes, idleTimeout, headTimeout, bodyTimeout,
                lingerTimeout);
    }

    public HttpLimits withHeadLimits(int requestLine, int headBytes, int headers) {
        return new HttpLimits(requestLine, headBytes, headers, maxBody, idleTimeout, headTimeout, bodyTimeout,
                lingerTimeout);
    }

    /** The shortest of the deadlines: how often a connection's one timer looks at its phase at least. */
    Duration shortestTimeout() {
        Duration d = idleTimeout.compareTo(headTimeout) < 0 ? idleTimeout : headTimeout;
        return d.compareTo(bodyTimeout) < 0 ? d : bodyTimeout;
    }
}
