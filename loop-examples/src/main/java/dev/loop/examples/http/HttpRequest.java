package dev.loop.examples.http;

/**
 * The head of one request, as far as the server needs it. Not thread-safe: one per connection,
 * reset for each request. Header values the server has no use for are checked, then forgotten;
 * those it may use later (the conditional ones, for files) are kept as positions in the buffer
 * parsed, valid until the head is consumed.
 */
final class HttpRequest {
    static final int GET = 1;
    static final int HEAD = 2;
    static final int POST = 3;
    static final int OPTIONS = 4;
    static final int CONNECT = 5;
    static final int OTHER = 6;

    /** The request target's forms (RFC 9112, 3.2). */
    static final int ORIGIN_FORM = 0;
    static final int ABSOLUTE_FORM = 1;
    static final int AUTHORITY_FORM = 2;
    static final int ASTERISK_FORM = 3;

    int method;
    /** The request target's bytes are {@code [targetStart, targetEnd)} of the buffer parsed. */
    int targetStart;
    int targetEnd;
    int targetForm;
    /**
     * The target's path and query, {@code [pathStart, pathEnd)}: the whole origin-form target, the
     * part after the authority of an absolute-form one (empty for {@code http://host}).
     */
    int pathStart;
    int pathEnd;
    /** 10 for HTTP/1.0, 11 for HTTP/1.1 (and any later HTTP/1.x, which is answered as 1.1). */
    int version;
    boolean keepAlive;
    /** The body's length, or -1 when there is none or it is chunked. */
    long contentLength;
    boolean chunked;
    boolean expectContinue;
    boolean hasHost;
    int headerCount;

    /**
     * Where the fields that make a file's response conditional or partial are: each {@code [start,
     * end)} of the buffer parsed, start -1 when absent; the count tells a repeated field (a list
     * field's lines combine; a repeated singleton is invalid and ignored).
     */
    final Field ifMatch = new Field();
    final Field ifUnmodifiedSince = new Field();
    final Field ifNoneMatch = new Field();
    final Field ifModifiedSince = new Field();
    final Field range = new Field();
    final Field ifRange = new Field();

    /** One field's value in the buffer; a repeated field keeps every line's value. */
    static final class Field {
        int start = -1;
        int end;
        int count;
        /** For a repeated list field: the lines' values, {@code [start, end)} pairs; else null. */
        int[] lines;

        void reset() {
            start = -1;
            end = 0;
            count = 0;
        }

        boolean present() {
            return start >= 0;
        }

        void add(int s, int e) {
            if (count == 0) {
                start = s;
                end = e;
            } else {
                if (lines == null || lines.length < 2 * (count + 1)) {
                    int[] grown = new int[Math.max(8, 4 * (count + 1))];
                    if (count > 1) {
                        System.arraycopy(lines, 0, grown, 0, 2 * count);
                    }
                    lines = grown;
                }
                if (count == 1) {
                    lines[0] = start;
                    lines[1] = end;
                }
                lines[2 * count] = s;
                lines[2 * count + 1] = e;
            }
            count++;
        }

        /** The value as text; a repeated list field's lines joined with ", " (RFC 9110, 5.3). */
        String text(byte[] b) {
            if (count <= 1) {
                return new String(b, start, end - start, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    s.append(", ");
                }
                s.append(new String(b, lines[2 * i], lines[2 * i + 1] - lines[2 * i],
                        java.nio.charset.StandardCharsets.ISO_8859_1));
            }
            return s.toString();
        }
    }

    void reset() {
        method = 0;
        targetStart = targetEnd = 0;
        targetForm = ORIGIN_FORM;
        pathStart = pathEnd = 0;
        version = 0;
        keepAlive = false;
        contentLength = -1;
        chunked = false;
        expectContinue = false;
        hasHost = false;
        headerCount = 0;
        ifMatch.reset();
        ifUnmodifiedSince.reset();
        ifNoneMatch.reset();
        ifModifiedSince.reset();
        range.reset();
        ifRange.reset();
    }

    boolean hasBody() {
        return chunked || contentLength > 0;
    }
}
