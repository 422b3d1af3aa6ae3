package dev.loop.sync;

/**
 * An {@link AsyncQueue} was closed: thrown to putters at once, and to takers once everything
 * put before the close has been taken.
 */
public class QueueClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public QueueClosedException(String message) {
        super(message);
    }
}
