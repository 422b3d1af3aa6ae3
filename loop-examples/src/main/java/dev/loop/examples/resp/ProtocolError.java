package dev.loop.examples.resp;

/**
 * Input that is not RESP, or breaks a limit: answered with {@code -ERR Protocol error: ...}, after
 * which the connection is closed, as Redis does. Bad input only, so no stack trace.
 */
final class ProtocolError extends Exception {
    ProtocolError(String message) {
        super(message, null, false, false);
    }

    /** The error reply's text. */
    String reply() {
        return "ERR Protocol error: " + getMessage();
    }
}
