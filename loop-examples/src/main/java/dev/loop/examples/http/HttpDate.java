package dev.loop.examples.http;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The {@code Date} header line, formatted once per second rather than per response (RFC 9110's
 * IMF-fixdate, e.g. {@code Sun, 06 Nov 1994 08:49:37 GMT}). Not thread-safe: one per loop.
 */
final class HttpDate {
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private long second = Long.MIN_VALUE;
    private byte[] line;

    /** {@code "Date: ...\r\n"} for the current second; the array is shared, do not change it. */
    byte[] line() {
        long now = System.currentTimeMillis();
        long s = Math.floorDiv(now, 1000);
        if (s != second) {
            second = s;
            line = ("Date: " + IMF_FIXDATE.format(Instant.ofEpochSecond(s)) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
        return line;
    }
}
