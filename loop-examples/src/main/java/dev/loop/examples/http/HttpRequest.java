package dev.loop.examples.http;

/**
 * The head of one request, as far as the server needs it. Not thread-safe: one per connection,
 * reset for each request. Header values the server has no use for are checked, then forgotten.
 */
final class HttpRequest {
    static final int GET = 1;
    static final int HEAD = 2;
    static final int POST = 3;
    static final int OTHER = 4;

    int method;
    /** The request target's bytes are {@code [targetStart, targetEnd)} of the buffer parsed. */
    int targetStart;
    int targetEnd;
    /** 10 for HTTP/1.0, 11 for HTTP/1.1. */
    int version;
    boolean keepAlive;
    /** The body's length, or -1 when there is none or it is chunked. */
    long contentLength;
    boolean chunked;
    boolean expectContinue;
    boolean hasHost;
    int headerCount;

    void reset() {
        method = 0;
        targetStart = targetEnd = 0;
        version = 0;
        keepAlive = false;
        contentLength = -1;
        chunked = false;
        expectContinue = false;
        hasHost = false;
        headerCount = 0;
    }

    boolean hasBody() {
        return chunked || contentLength > 0;
    }
}
