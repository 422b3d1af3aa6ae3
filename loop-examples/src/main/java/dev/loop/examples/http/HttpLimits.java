package dev.loop.examples.http;

import java.time.Duration;

/**
 * What the HTTP server accepts, and how long it waits.
 *
 * @param maxRequestLine bytes of the request line, line ending excluded; longer: 414
 * @param maxHeadBytes   bytes of the whole head (request line, headers, blank line); more: 431
 * @param maxHeaders     header fields per request; more: 431
 * @param maxBody        bytes of a request body, declared or chunked; more: 413
 * @param idleTimeout    a connection with no request in progress and nothing received for this
 *                       long is closed (with a 408 if a request had begun to arrive)
 * @param lingerTimeout  after refusing a request the server stops sending and reads, discarding,
 *                       for at most this long before it closes, so the client gets the answer
 *                       rather than a reset for the bytes it was still sending
 */
public record HttpLimits(int maxRequestLine, int maxHeadBytes, int maxHeaders, long maxBody, Duration idleTimeout,
                         Duration lingerTimeout) {

    public HttpLimits {
        if (maxRequestLine < 16 || maxHeadBytes < maxRequestLine || maxHeaders < 1 || maxBody < 0) {
            throw new IllegalArgumentException("need maxRequestLine >= 16, maxHeadBytes >= maxRequestLine,"
                    + " maxHeaders >= 1, maxBody >= 0: " + maxRequestLine + ", " + maxHeadBytes + ", "
                    + maxHeaders + ", " + maxBody);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero() || lingerTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout must be positive and lingerTimeout not negative: "
                    + idleTimeout + ", " + lingerTimeout);
        }
    }

    /** 8 KiB request line, 16 KiB head, 100 headers, 1 MiB body, 30 s idle, 2 s linger. */
    public static HttpLimits defaults() {
        return new HttpLimits(8 * 1024, 16 * 1024, 100, 1024 * 1024, Duration.ofSeconds(30), Duration.ofSeconds(2));
    }

    public HttpLimits withIdleTimeout(Duration d) {
        return new HttpLimits(maxRequestLine, maxHeadBytes, maxHeaders, maxBody, d, lingerTimeout);
    }

    public HttpLimits withMaxBody(long bytes) {
        return new HttpLimits(maxRequestLine, maxHeadBytes, maxHeaders, bytes, idleTimeout, lingerTimeout);
    }

    public HttpLimits withHeadLimits(int requestLine, int headBytes, int headers) {
        return new HttpLimits(requestLine, headBytes, headers, maxBody, idleTimeout, lingerTimeout);
    }
}
