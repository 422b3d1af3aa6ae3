package dev.loop.examples.http;

import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;

/**
 * How a file is answered, apart from sending its bytes: its validators ({@code ETag},
 * {@code Last-Modified}, RFC 9110 8.8), the preconditions a GET or HEAD may carry
 * ({@code If-Match}, {@code If-Unmodified-Since}, {@code If-None-Match}, {@code If-Modified-Since},
 * 13.1) and a byte range ({@code Range}, {@code If-Range}, 14). Thread-safe (stateless): it may run on the loop or on an offload thread.
 *
 * <p>What a client sends here costs work in proportion to its bytes and no more, which the head
 * limit bounds: a list of thousands of ranges or entity tags is walked once, without allocating,
 * and numbers past a {@code long} saturate instead of wrapping.
 *
 * <p>One range is answered 206; several are answered 200 with the whole file, as RFC 9110 14.2
 * allows (multipart/byteranges is not done), unless only one of them is satisfiable.
 */
final class FileResponse {
    private static final byte[] ACCEPT_RANGES = Responses.ascii("Accept-Ranges: bytes\r\n");

    private FileResponse() {
    }

    /**
     * The fields that make a file's response conditional or partial, as the client sent them, each
     * null when absent or to be ignored. Taken from the input buffer while the head is still there.
     */
    record Conditions(String ifMatch, String ifUnmodifiedSince, String ifNoneMatch, String ifModifiedSince,
                      String range, String ifRange) {
        static final Conditions NONE = new Conditions(null, null, null, null, null, null);

        static Conditions of(byte[] b, HttpRequest req) {
            boolean rangeValid = req.range.count == 1 && req.ifRange.count <= 1;
            if (!req.ifMatch.present() && !req.ifUnmodifiedSince.present() && !req.ifNoneMatch.present()
                    && !req.ifModifiedSince.present() && !rangeValid) {
                return NONE; // the common case: nothing to copy out of the buffer
            }
            // a repeated singleton field is invalid: ignored, and a repeated If-Range voids the Range
            return new Conditions(req.ifMatch.present() ? req.ifMatch.text(b) : null,
                    req.ifUnmodifiedSince.count == 1 ? req.ifUnmodifiedSince.text(b) : null,
                    req.ifNoneMatch.present() ? req.ifNoneMatch.text(b) : null,
                    req.ifModifiedSince.count == 1 ? req.ifModifiedSince.text(b) : null,
                    rangeValid ? req.range.text(b) : null,
                    rangeValid && req.ifRange.present() ? req.ifRange.text(b) : null);
        }
    }

    /**
     * What to answer: {@code status} 200, 206, 304, 412 or 416, and the bytes of the file that
     * follow the head, {@code length} of them from {@code first} (none for 304, 412 and 416).
     */
    record Selection(int status, long first, long length, long size, String etag, long lastModified) {
        /** Whether the file's bytes follow the head (for a GET). */
        boolean sendsFile() {
            return (status == 200 || status == 206) && length > 0;
        }
    }

    /** A strong entity tag from the file's size and modification time: it changes when either does. */
    static String etag(long size, long mtimeNanos) {
        return "\"" + Long.toHexString(size) + "-" + Long.toHexString(mtimeNanos) + "\"";
    }

    /**
     * Evaluates the preconditions in RFC 9110's order (13.2.2), then the range.
     *
     * @param get        true for GET; a HEAD is answered as a GET would be, except that ranges are
     *                   for GET only (14.2), so it always gets the whole file's headers
     * @param nowMillis  the time of the answer, which a modification time may not be later than
     */
    static Selection select(Conditions c, boolean get, long size, long mtimeNanos, long nowMillis) {
        String etag = etag(size, mtimeNanos);
        long now = Math.floorDiv(nowMillis, 1000);
        long modified = Math.min(Math.floorDiv(mtimeNanos, 1_000_000_000L), now); // never in the future (8.8.2.1)
        Selection whole = new Selection(200, 0, size, size, etag, modified);
        if (c.ifMatch() != null) {
            if (!matchHolds(c.ifMatch(), etag)) {
                return new Selection(412, 0, 0, size, etag, modified);
            }
        } else if (c.ifUnmodifiedSince() != null) {
            long since = HttpDate.parse(c.ifUnmodifiedSince(), now);
            if (since != HttpDate.INVALID && modified > since) {
                return new Selection(412, 0, 0, size, etag, modified); // an invalid date is ignored (13.1.4)
            }
        }
        if (c.ifNoneMatch() != null) {
            if (noneMatchFails(c.ifNoneMatch(), etag)) {
                return new Selection(304, 0, 0, size, etag, modified);
            }
        } else if (c.ifModifiedSince() != null) {
            long since = HttpDate.parse(c.ifModifiedSince(), now);
            if (since != HttpDate.INVALID && since <= now && modified <= since) {
                return new Selection(304, 0, 0, size, etag, modified); // an invalid or future date is ignored
            }
        }
        if (!get || c.range() == null || (c.ifRange() != null && !ifRangeHolds(c.ifRange(), etag, modified, now))) {
            return whole;
        }
        return range(c.range(), whole);
    }

    /**
     * Writes the head of {@code s} and, for a 416, its short body; the file's bytes, when
     * {@link Selection#sendsFile()}, are the caller's to send.
     */
    static void head(OutputBuffer out, HttpDate date, Selection s, byte[] type, boolean withBody, int connection) {
        StringBuilder extra = new StringBuilder(128);
        extra.append("Last-Modified: ").append(HttpDate.format(s.lastModified())).append("\r\nETag: ").append(s.etag())
                .append("\r\n");
        if (s.status() == 304) {
            Responses.headWithoutContent(out, date, 304, ascii(extra), connection);
            return;
        }
        if (s.status() == 412) {
            Responses.text(out, date, 412, ascii(extra), "precondition failed", withBody, connection);
            return;
        }
        if (s.status() == 416) {
            extra.append("Content-Range: bytes */").append(s.size()).append("\r\n");
            Responses.text(out, date, 416, ascii(extra), "range not satisfiable: the file has " + s.size() + " bytes",
                    withBody, connection);
            return;
        }
        if (s.status() == 206) {
            extra.append("Content-Range: bytes ").append(s.first()).append('-').append(s.first() + s.length() - 1)
                    .append('/').append(s.size()).append("\r\n");
        }
        byte[] lines = ascii(extra);
        byte[] all = new byte[lines.length + ACCEPT_RANGES.length];
        System.arraycopy(lines, 0, all, 0, lines.length);
        System.arraycopy(ACCEPT_RANGES, 0, all, lines.length, ACCEPT_RANGES.length);
        Responses.head(out, date, s.status(), all, type, s.length(), connection);
    }

    /**
     * Whether {@code If-None-Match} fails, i.e. the representation matches: {@code *}, or a list
     * holding our tag under weak comparison (13.1.2). A malformed list matches nothing, so the
     * worst a client gets from one is the whole file.
     */
    static boolean noneMatchFails(String field, String etag) {
        return listHolds(field, etag, false);
    }

    /**
     * Whether {@code If-Match} holds: {@code *}, or a list holding our tag under strong comparison
     * (13.1.1). A malformed list holds nothing: the client asked for a condition it did not get.
     */
    static boolean matchHolds(String field, String etag) {
        return listHolds(field, etag, true);
    }

    /** Whether {@code field}, {@code "*"} or a well-formed list of entity tags, holds {@code etag}. */
    private static boolean listHolds(String field, String etag, boolean strong) {
        int n = field.length();
        int i = skipOws(field, 0);
        if (i < n && field.charAt(i) == '*') {
            return skipOws(field, i + 1) == n;
        }
        boolean any = false;
        while (i < n) {
            char c = field.charAt(i);
            if (c == ',' || c == ' ' || c == '\t') {
                i++; // list separators, and the empty elements a recipient must accept (RFC 9110, 5.6.1)
                continue;
            }
            boolean weak = false;
            if (c == 'W' && i + 1 < n && field.charAt(i + 1) == '/') {
                weak = true;
                i += 2;
            }
            int close = opaqueTagEnd(field, i);
            if (close < 0) {
                return false;
            }
            if (!(strong && weak) && close - i == etag.length() && field.regionMatches(i, etag, 0, etag.length())) {
                any = true; // the rest is still walked: a malformed list matches nothing
            }
            i = skipOws(field, close);
            if (i < n && field.charAt(i) != ',') {
                return false;
            }
        }
        return any;
    }

    /**
     * Whether {@code If-Range} lets the range through: a strong tag equal to ours (strong comparison),
     * or exactly our {@code Last-Modified}, which counts as a strong validator only once its second
     * is over (8.8.2.2). Anything else, including what is not a tag or a date, voids the range.
     */
    private static boolean ifRangeHolds(String v, String etag, long modified, long now) {
        if (v.startsWith("\"") || v.startsWith("W/")) {
            return v.equals(etag);
        }
        long date = HttpDate.parse(v, now);
        return date != HttpDate.INVALID && date == modified && modified < now;
    }

    /**
     * Applies {@code Range} to {@code whole}: 206 for one satisfiable range, 416 for none, 200
     * (the whole file) for several, for another unit and for a malformed range set (14.2).
     */
    static Selection range(String field, Selection whole) {
        long size = whole.size();
        int n = field.length();
        if (n < 6 || !field.regionMatches(true, 0, "bytes=", 0, 6)) {
            return whole; // another unit, or no range set: ignored
        }
        int i = 6;
        int specs = 0;
        int satisfiable = 0;
        long first = 0;
        long last = 0;
        boolean wholeOfEmpty = false;
        while (i < n) {
            char c = field.charAt(i);
            if (c == ',' || c == ' ' || c == '\t') {
                i++;
                continue;
            }
            long a = -1;
            if (c != '-') {
                int s = i;
                a = 0;
                for (; i < n && isDigit(field.charAt(i)); i++) {
                    a = digit(a, field.charAt(i));
                }
                if (i == s || i >= n || field.charAt(i) != '-') {
                    return whole;
                }
            }
            i++; // the '-'
            int s = i;
            long b = 0;
            for (; i < n && isDigit(field.charAt(i)); i++) {
                b = digit(b, field.charAt(i));
            }
            boolean hasB = i > s;
            i = skipOws(field, i);
            if (i < n && field.charAt(i) != ',') {
                return whole;
            }
            specs++;
            long from;
            long to;
            if (a < 0) {
                if (!hasB) {
                    return whole; // "-" alone
                }
                if (b == 0) {
                    continue; // a zero-length suffix selects nothing
                }
                if (size == 0) {
                    wholeOfEmpty = true; // satisfiable, yet no Content-Range can say so: the (empty) whole
                    continue;
                }
                from = Math.max(0, size - b);
                to = size - 1;
            } else {
                if (hasB && b < a) {
                    return whole; // last before first: the range set is invalid
                }
                if (a >= size) {
                    continue;
                }
                from = a;
                to = hasB ? Math.min(b, size - 1) : size - 1;
            }
            if (++satisfiable == 1) {
                first = from;
                last = to;
            }
        }
        if (specs == 0 || wholeOfEmpty || satisfiable > 1) {
            return whole;
        }
        if (satisfiable == 0) {
            return new Selection(416, 0, 0, size, whole.etag(), whole.lastModified());
        }
        return new Selection(206, first, last - first + 1, size, whole.etag(), whole.lastModified());
    }

    /** {@code v * 10 + digit}, saturating at {@link Long#MAX_VALUE} rather than wrapping. */
    private static long digit(long v, char c) {
        return v > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : v * 10 + (c - '0');
    }

    /** The index just past the closing quote of the opaque tag at {@code i}, or -1. */
    private static int opaqueTagEnd(String s, int i) {
        if (i >= s.length() || s.charAt(i) != '"') {
            return -1;
        }
        for (int k = i + 1; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '"') {
                return k + 1;
            }
            if (c < 0x21 || c == 0x7f) {
                return -1; // etagc: no spaces or controls inside
            }
        }
        return -1;
    }

    private static int skipOws(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static byte[] ascii(CharSequence s) {
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
