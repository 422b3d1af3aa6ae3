package dev.loop.examples.http;

import dev.loop.examples.io.OutputBuffer;

/**
 * Decodes a chunked request body (RFC 9112, 7.1) as its bytes arrive, in whatever pieces. Not
 * thread-safe: one per connection.
 *
 * <p>A state machine over the input array: the chunk-size line (hex digits, extensions skipped),
 * the chunk's data (copied to the body, or skipped when nobody wants it), its CRLF, and after the
 * last chunk the trailer lines up to the blank one. Trailer lines are held to the rules of header
 * lines ({@link HttpParser}): a token, a colon, a value without control characters, no folding; a
 * line that is not one is a 400, never taken for a trailer, so a request that follows a broken
 * body cannot be swallowed as trailers. Trailers are checked and dropped: nothing here uses them.
 * It keeps its state between calls, so no byte is looked at twice and nothing is buffered but the
 * data itself.
 */
final class ChunkedDecoder {
    private static final int SIZE = 0;
    private static final int EXTENSION = 1;
    private static final int SIZE_LF = 2;
    private static final int DATA = 3;
    private static final int DATA_CR = 4;
    private static final int DATA_LF = 5;
    private static final int TRAILER = 6;       // at the start of a trailer line
    private static final int TRAILER_NAME = 7;
    private static final int TRAILER_VALUE = 8;
    private static final int TRAILER_LF = 9;    // a CR seen, in a value or alone: only LF may follow
    private static final int DONE = 10;

    /** Longest chunk-size line, extensions included; longer ones are refused. */
    static final int MAX_SIZE_LINE = 1024;

    private final HttpLimits limits;
    private int state;
    private int digits;
    private long chunkLeft;
    private long total;
    private int lineLength;
    private int trailerBytes;
    private int trailers;

    ChunkedDecoder(HttpLimits limits) {
        this.limits = limits;
    }

    void reset() {
        state = SIZE;
        digits = 0;
        chunkLeft = 0;
        total = 0;
        lineLength = 0;
        trailerBytes = 0;
        trailers = 0;
    }

    boolean isDone() {
        return state == DONE;
    }

    /** Body bytes decoded so far. */
    long total() {
        return total;
    }

    /**
     * Decodes from {@code b[pos, end)}, appending data to {@code body} (or dropping it when
     * {@code body} is null), and stops after the last chunk's trailers.
     *
     * @return the index of the first byte not consumed
     * @throws HttpError 400 for a malformed encoding or a chunk size that overflows, 413 past the body
     *                   limit (checked on each chunk's declared size, before its data), 400 for a malformed
     *                   trailer line, 431 for too many or too large trailers
     */
    int decode(byte[] b, int pos, int end, OutputBuffer body) throws HttpError {
        int i = pos;
        while (i < end && state != DONE) {
            switch (state) {
                case SIZE -> {
                    int d = HttpParser.hex(b[i]);
                    if (d >= 0) {
                        if (chunkLeft > (Long.MAX_VALUE >> 4)) {
                            throw new HttpError(400, "chunk size overflows 63 bits"); // leading zeros are fine
                        }
                        digits++;
                        chunkLeft = chunkLeft * 16 + d;
                        i++;
                        line();
                    } else if (digits == 0) {
                        throw new HttpError(400, "chunk size missing");
                    } else if (b[i] == ';' || b[i] == ' ' || b[i] == '\t') {
                        state = EXTENSION;
                    } else if (b[i] == '\r') {
                        state = SIZE_LF;
                        i++;
                    } else if (b[i] == '\n') {
                        i++;
                        endOfSizeLine();
                    } else {
                        throw new HttpError(400, "malformed chunk size");
                    }
                }
                case EXTENSION -> {
                    // chunk extensions are allowed and ignored; only their length is bounded
                    if (b[i] == '\n') {
                        endOfSizeLine();
                    } else {
                        line();
                    }
                    i++;
                }
                case SIZE_LF -> {
                    if (b[i++] != '\n') {
                        throw new HttpError(400, "CR without LF after a chunk size");
                    }
                    endOfSizeLine();
                }
                case DATA -> {
                    int n = (int) Math.min(chunkLeft, end - i);
                    if (body != null) {
                        body.put(b, i, n);
                    }
                    i += n;
                    chunkLeft -= n;
                    if (chunkLeft == 0) {
                        state = DATA_CR;
                    }
                }
                case DATA_CR -> {
                    byte c = b[i++];
                    if (c == '\r') {
                        state = DATA_LF;
                    } else if (c == '\n') {
                        state = SIZE;
                    } else {
                        throw new HttpError(400, "chunk data longer than its size");
                    }
                }
                case DATA_LF -> {
                    if (b[i++] != '\n') {
                        throw new HttpError(400, "CR without LF after chunk data");
                    }
                    state = SIZE;
                }
                case TRAILER -> {
                    byte c = b[i++];
                    trailerByte();
                    if (c == '\n') {
                        state = DONE;
                    } else if (c == '\r') {
                        lineLength = 0; // a CR on its own: the blank line, if LF follows
                        state = TRAILER_LF;
                    } else if (c == ' ' || c == '\t') {
                        throw new HttpError(400, "folded trailer line (obs-fold) is not accepted");
                    } else if (HttpParser.isToken(c)) {
                        if (++trailers > limits.maxHeaders()) {
                            throw new HttpError(431, "more than " + limits.maxHeaders() + " trailer fields");
                        }
                        state = TRAILER_NAME;
                    } else {
                        throw new HttpError(400, "malformed trailer field name");
                    }
                }
                case TRAILER_NAME -> {
                    byte c = b[i++];
                    trailerByte();
                    if (c == ':') {
                        lineLength = 1; // in a value: a CR ends a field line, not the trailer section
                        state = TRAILER_VALUE;
                    } else if (!HttpParser.isToken(c)) {
                        throw new HttpError(400, "malformed trailer field name");
                    }
                }
                case TRAILER_VALUE -> {
                    byte c = b[i++];
                    trailerByte();
                    if (c == '\n') {
                        state = TRAILER;
                    } else if (c == '\r') {
                        state = TRAILER_LF;
                    } else if (((c & 0xff) < 32 && c != '\t') || c == 127) {
                        throw new HttpError(400, "control character in a trailer value");
                    }
                }
                case TRAILER_LF -> {
                    byte c = b[i++];
                    trailerByte();
                    if (c != '\n') {
                        throw new HttpError(400, "CR without LF in the trailer section");
                    }
                    state = lineLength == 0 ? DONE : TRAILER;
                }
                default -> throw new IllegalStateException("chunked decoder in state " + state);
            }
        }
        return i;
    }

    private void trailerByte() throws HttpError {
        if (++trailerBytes > limits.maxHeadBytes()) {
            throw new HttpError(431, "trailer fields longer than " + limits.maxHeadBytes() + " bytes");
        }
    }

    private void line() throws HttpError {
        if (++lineLength > MAX_SIZE_LINE) {
            throw new HttpError(400, "chunk size line longer than " + MAX_SIZE_LINE + " bytes");
        }
    }

    private void endOfSizeLine() throws HttpError {
        digits = 0;
        lineLength = 0;
        if (chunkLeft == 0) {
            state = TRAILER;
            return;
        }
        if (chunkLeft > limits.maxBody() - total) { // not total + chunkLeft: that may overflow
            throw new HttpError(413, "chunked body larger than " + limits.maxBody() + " bytes");
        }
        total += chunkLeft;
        state = DATA;
    }
}
