package dev.loop.examples.http;

/**
 * Parses request heads (RFC 9112) straight from a connection's input array. Not thread-safe: one
 * per connection.
 *
 * <p>A head is parsed only once it is all there: the parser first looks for the blank line that
 * ends it (remembering how far it looked, so a head arriving a byte at a time is scanned once),
 * then reads the request line and the headers in one pass over the array, without copying or
 * allocating. Headers the server does not use are validated and skipped; the few it does use
 * ({@code Host}, {@code Connection}, {@code Content-Length}, {@code Transfer-Encoding},
 * {@code Expect}, and for files the conditional fields and {@code Range}) are matched by length, then case-insensitively, byte by byte. The request
 * target's form is told apart and checked by {@link RequestTarget}.
 */
final class HttpParser {
    static final int NEED_MORE = -1;

    private static final byte[] HOST = ascii("host");
    private static final byte[] EXPECT = ascii("expect");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] CHUNKED = ascii("chunked");
    private static final byte[] CLOSE = ascii("close");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");
    private static final byte[] CONTINUE = ascii("100-continue");
    private static final byte[] GET = ascii("GET");
    private static final byte[] HEAD = ascii("HEAD");
    private static final byte[] POST = ascii("POST");
    private static final byte[] OPTIONS = ascii("OPTIONS");
    private static final byte[] CONNECT = ascii("CONNECT");
    private static final byte[] IF_MATCH = ascii("if-match");
    private static final byte[] IF_UNMODIFIED_SINCE = ascii("if-unmodified-since");
    private static final byte[] IF_NONE_MATCH = ascii("if-none-match");
    private static final byte[] IF_MODIFIED_SINCE = ascii("if-modified-since");
    private static final byte[] RANGE = ascii("range");
    private static final byte[] IF_RANGE = ascii("if-range");

    /** RFC 9110 tchar: the bytes allowed in a method or a header name. */
    private static final boolean[] TOKEN = new boolean[256];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TOKEN[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TOKEN[c] = true;
            TOKEN[c - 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN[c] = true;
        }
    }

    private final HttpLimits limits;
    private int scanned; // bytes past the head's start already searched for its end

    HttpParser(HttpLimits limits) {
        this.limits = limits;
    }

    /**
     * Parses the head at the start of {@code b[start, end)} into {@code req}.
     *
     * @return the index just past the head, or {@link #NEED_MORE} if it is not all there yet
     * @throws HttpError for a malformed head, target or Host (400), an unsupported version (505), a
     *                   too long request line (414), too many or too large headers (431), an
     *                   expectation other than 100-continue (417), a transfer coding other than
     *                   chunked (501)
     */
    int parseHead(byte[] b, int start, int end, HttpRequest req) throws HttpError {
        req.reset();
        while (start < end && (b[start] == '\r' || b[start] == '\n')) {
            start++; // empty lines before a request line are ignored (RFC 9112, 2.2)
        }
        int headEnd = findHeadEnd(b, start, end);
        if (headEnd < 0) {
            int have = end - start;
            if (have > limits.maxRequestLine() && indexOf(b, start, Math.min(end, start + limits.maxRequestLine() + 2), '\n') < 0) {
                throw new HttpError(414, "request line longer than " + limits.maxRequestLine() + " bytes");
            }
            if (have > limits.maxHeadBytes()) {
                throw new HttpError(431, "request head longer than " + limits.maxHeadBytes() + " bytes");
            }
            return NEED_MORE;
        }
        scanned = 0;
        int at = requestLine(b, start, headEnd, req);
        if (headEnd - start > limits.maxHeadBytes()) {
            throw new HttpError(431, "request head longer than " + limits.maxHeadBytes() + " bytes");
        }
        headers(b, at, headEnd, req);
        return headEnd;
    }

    /** Index just past the blank line ending the head, or -1; accepts CRLF and bare LF endings. */
    private int findHeadEnd(byte[] b, int start, int end) {
        int i = start + Math.max(0, scanned - 2);
        for (; i < end; i++) {
            if (b[i] != '\n') {
                continue;
            }
            if (i + 1 >= end) {
                break;
            }
            if (b[i + 1] == '\n') {
                return i + 2;
            }
            if (b[i + 1] == '\r') {
                if (i + 2 >= end) {
                    break;
                }
                if (b[i + 2] == '\n') {
                    return i + 3;
                }
            }
        }
        scanned = Math.min(i, end) - start;
        return -1;
    }

    /** Parses {@code METHOD SP TARGET SP HTTP/x.y}; returns the index after its line ending. */
    private int requestLine(byte[] b, int start, int headEnd, HttpRequest req) throws HttpError {
        int lf = indexOf(b, start, headEnd, '\n');
        int stop = lf > start && b[lf - 1] == '\r' ? lf - 1 : lf;
        if (stop - start > limits.maxRequestLine()) {
            throw new HttpError(414, "request line longer than " + limits.maxRequestLine() + " bytes");
        }
        int i = start;
        while (i < stop && TOKEN[b[i] & 0xff]) {
            i++;
        }
        if (i == start || i >= stop || b[i] != ' ') {
            throw new HttpError(400, i == start ? "request line does not start with a method" : "malformed method");
        }
        req.method = method(b, start, i);
        int t = ++i;
        while (i < stop && b[i] > ' ' && b[i] < 127) {
            i++;
        }
        if (i == t || i >= stop || b[i] != ' ') {
            throw new HttpError(400, "malformed request target");
        }
        req.targetStart = t;
        req.targetEnd = i;
        req.version = version(b, i + 1, stop); // first: an HTTP/2 preface ("PRI * HTTP/2.0") gets its 505
        RequestTarget.parse(b, req);
        return lf + 1;
    }

    private static int method(byte[] b, int from, int to) {
        if (regionEquals(b, from, to, GET)) {
            return HttpRequest.GET;
        }
        if (regionEquals(b, from, to, HEAD)) {
            return HttpRequest.HEAD;
        }
        if (regionEquals(b, from, to, POST)) {
            return HttpRequest.POST;
        }
        if (regionEquals(b, from, to, OPTIONS)) {
            return HttpRequest.OPTIONS;
        }
        return regionEquals(b, from, to, CONNECT) ? HttpRequest.CONNECT : HttpRequest.OTHER;
    }

    /**
     * {@code HTTP/DIGIT.DIGIT} (RFC 9112, 2.3). Any HTTP/1.x from 1.1 on is taken as 1.1, the
     * highest minor version this server knows (RFC 9110, 6.2); another major version is 505.
     */
    private static int version(byte[] b, int from, int to) throws HttpError {
        if (to - from == 8 && b[from] == 'H' && b[from + 1] == 'T' && b[from + 2] == 'T' && b[from + 3] == 'P'
                && b[from + 4] == '/' && isDigit(b[from + 5]) && b[from + 6] == '.' && isDigit(b[from + 7])) {
            int major = b[from + 5] - '0';
            int minor = b[from + 7] - '0';
            if (major == 1) {
                return minor == 0 ? 10 : 11;
            }
            throw new HttpError(505, "HTTP/" + major + "." + minor + " is not supported; use HTTP/1.1");
        }
        throw new HttpError(400, "malformed HTTP version");
    }

    private void headers(byte[] b, int at, int headEnd, HttpRequest req) throws HttpError {
        boolean close = false;
        boolean keepAlive = false;
        boolean hasTransferEncoding = false;
        for (;;) {
            int lf = indexOf(b, at, headEnd, '\n');
            int stop = lf > at && b[lf - 1] == '\r' ? lf - 1 : lf;
            if (stop == at) {
                break; // the blank line
            }
            if (b[at] == ' ' || b[at] == '\t') {
                throw new HttpError(400, "folded header line (obs-fold) is not accepted");
            }
            if (++req.headerCount > limits.maxHeaders()) {
                throw new HttpError(431, "more than " + limits.maxHeaders() + " header fields");
            }
            int colon = at;
            while (colon < stop && TOKEN[b[colon] & 0xff]) {
                colon++;
            }
            if (colon == at || colon >= stop || b[colon] != ':') {
                throw new HttpError(400, "malformed header field name");
            }
            int v = colon + 1;
            int ve = stop;
            while (v < ve && (b[v] == ' ' || b[v] == '\t')) {
                v++;
            }
            while (ve > v && (b[ve - 1] == ' ' || b[ve - 1] == '\t')) {
                ve--;
            }
            for (int k = v; k < ve; k++) {
                int c = b[k] & 0xff;
                if ((c < 32 && c != '\t') || c == 127) {
                    throw new HttpError(400, "control character in a header value");
                }
            }
            int nameLen = colon - at;
            if (nameLen == HOST.length && lowerEquals(b, at, HOST)) {
                if (req.hasHost) {
                    throw new HttpError(400, "more than one Host header");
                }
                if (!Authority.isHostAndPort(b, v, ve)) {
                    throw new HttpError(400, "invalid Host header: not a host with an optional port");
                }
                req.hasHost = true;
            } else if (nameLen == CONNECTION.length && lowerEquals(b, at, CONNECTION)) {
                close |= hasToken(b, v, ve, CLOSE);
                keepAlive |= hasToken(b, v, ve, KEEP_ALIVE);
            } else if (nameLen == CONTENT_LENGTH.length && lowerEquals(b, at, CONTENT_LENGTH)) {
                long n = contentLength(b, v, ve);
                if (req.contentLength >= 0 && req.contentLength != n) {
                    throw new HttpError(400, "conflicting Content-Length headers");
                }
                req.contentLength = n;
            } else if (nameLen == TRANSFER_ENCODING.length && lowerEquals(b, at, TRANSFER_ENCODING)) {
                hasTransferEncoding = true;
                req.chunked = transferEncoding(b, v, ve);
            } else if (nameLen == EXPECT.length && lowerEquals(b, at, EXPECT)) {
                if (ve - v != CONTINUE.length || !lowerEquals(b, v, CONTINUE)) {
                    throw new HttpError(417, "only the expectation 100-continue is supported");
                }
                req.expectContinue = true;
            } else if (nameLen == IF_MATCH.length && lowerEquals(b, at, IF_MATCH)) {
                req.ifMatch.add(v, ve);
            } else if (nameLen == IF_UNMODIFIED_SINCE.length && lowerEquals(b, at, IF_UNMODIFIED_SINCE)) {
                req.ifUnmodifiedSince.add(v, ve);
            } else if (nameLen == IF_NONE_MATCH.length && lowerEquals(b, at, IF_NONE_MATCH)) {
                req.ifNoneMatch.add(v, ve);
            } else if (nameLen == IF_MODIFIED_SINCE.length && lowerEquals(b, at, IF_MODIFIED_SINCE)) {
                req.ifModifiedSince.add(v, ve);
            } else if (nameLen == RANGE.length && lowerEquals(b, at, RANGE)) {
                req.range.add(v, ve);
            } else if (nameLen == IF_RANGE.length && lowerEquals(b, at, IF_RANGE)) {
                req.ifRange.add(v, ve);
            }
            at = lf + 1;
        }
        if (hasTransferEncoding && req.contentLength >= 0) {
            throw new HttpError(400, "both Transfer-Encoding and Content-Length");
        }
        if (hasTransferEncoding && req.version == 10) {
            throw new HttpError(400, "Transfer-Encoding in an HTTP/1.0 request");
        }
        if (req.version == 11 && !req.hasHost) {
            throw new HttpError(400, "missing Host header");
        }
        // a CONNECT is refused (this server is no proxy); what the client sends next may be a tunnel's bytes
        req.keepAlive = !close && (req.version == 11 || keepAlive) && req.method != HttpRequest.CONNECT;
    }

    private static long contentLength(byte[] b, int v, int ve) throws HttpError {
        if (v == ve) {
            throw new HttpError(400, "empty Content-Length");
        }
        long n = 0;
        for (int k = v; k < ve; k++) {
            if (!isDigit(b[k])) {
                throw new HttpError(400, "Content-Length is not a number");
            }
            if (n > (Long.MAX_VALUE - 9) / 10) {
                throw new HttpError(413, "Content-Length too large");
            }
            n = n * 10 + (b[k] - '0');
        }
        return n;
    }

    /** True if the codings end with chunked; only chunked alone is understood. */
    private static boolean transferEncoding(byte[] b, int v, int ve) throws HttpError {
        if (ve - v == CHUNKED.length && lowerEquals(b, v, CHUNKED)) {
            return true;
        }
        throw new HttpError(501, "transfer coding other than chunked is not implemented");
    }

    /** Whether the comma-separated list {@code b[v, ve)} holds {@code token}, case-insensitively. */
    private static boolean hasToken(byte[] b, int v, int ve, byte[] token) {
        int i = v;
        while (i < ve) {
            while (i < ve && (b[i] == ' ' || b[i] == '\t' || b[i] == ',')) {
                i++;
            }
            int s = i;
            while (i < ve && b[i] != ',' && b[i] != ' ' && b[i] != '\t') {
                i++;
            }
            if (i - s == token.length && lowerEquals(b, s, token)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code c} is an RFC 9110 tchar, allowed in a method or a field name. */
    static boolean isToken(byte c) {
        return TOKEN[c & 0xff];
    }

    static int indexOf(byte[] b, int from, int to, char c) {
        int end = Math.min(to, b.length);
        for (int i = from; i < end; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** The value of the hex digit {@code c}, either case, or -1. */
    static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static boolean regionEquals(byte[] b, int from, int to, byte[] word) {
        if (to - from != word.length) {
            return false;
        }
        for (int i = 0; i < word.length; i++) {
            if (b[from + i] != word[i]) {
                return false;
            }
        }
        return true;
    }

    /** Compares {@code b} at {@code at} with the lower-case ASCII {@code lower}, ignoring case. */
    static boolean lowerEquals(byte[] b, int at, byte[] lower) {
        for (int i = 0; i < lower.length; i++) {
            int c = b[at + i];
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lower[i]) {
                return false;
            }
        }
        return true;
    }

    static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
