package dev.loop.examples.http;

/**
 * A request the server refuses: the status to answer with and why, for the response body. The
 * connection is closed after the answer. Thrown on bad input only, so it skips the stack trace.
 */
final class HttpError extends Exception {
    final int status;

    HttpError(int status, String reason) {
        super(reason, null, false, false);
        this.status = status;
    }
}
