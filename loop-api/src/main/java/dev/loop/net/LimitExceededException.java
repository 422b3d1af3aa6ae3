package dev.loop.net;

import java.io.IOException;

/**
 * A stream read found no delimiter within its limit (a line longer than allowed). The bytes stay
 * buffered: the caller decides whether to close or to read them some other way.
 */
public class LimitExceededException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int limit;

    public LimitExceededException(String message, int limit) {
        super(message);
        this.limit = limit;
    }

    /** The limit that was exceeded, in bytes. */
    public int limit() {
        return limit;
    }
}
