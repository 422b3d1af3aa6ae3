package dev.loop.spi;

/**
 * Receives the readiness of one socket from the backend. Called on the loop thread from inside
 * {@link IoDriver#poll}, so an implementation must do nothing but record the bits and enqueue its
 * work on the loop (the engine's rule: no user code runs during a poll).
 *
 * <p>Readiness is level-triggered: a socket that is still readable after the work ran is reported
 * again by the next poll, so the receiver may stop after a bounded amount of work.
 */
@FunctionalInterface
public interface IoReady {
    /** Data (or a pending connection, or end of stream) can be read without blocking. */
    int READ = 1;
    /** Bytes can be written without blocking, or a non-blocking connect has finished. */
    int WRITE = 1 << 1;
    /** The socket has an error pending; the next read, write or finishConnect reports it. */
    int ERROR = 1 << 2;
    /** The peer hung up (both directions, or its output): reads will see end of stream. */
    int HANGUP = 1 << 3;

    /**
     * The socket became ready.
     *
     * @param readyOps a combination of {@link #READ}, {@link #WRITE}, {@link #ERROR},
     *                 {@link #HANGUP}; backends that cannot tell errors apart report them as
     *                 {@code READ} or {@code WRITE}
     */
    void onReady(int readyOps);

    /**
     * The same report, from a layer between the socket and this receiver (TLS) that passes
     * readiness on from its own callback: already in the callback phase, outside the poll, so a
     * receiver that would only queue its work for that phase may do it now and save a loop
     * iteration per event. Backends never call this. By default the same as {@link #onReady}.
     */
    default void onReadyInCallbackPhase(int readyOps) {
        onReady(readyOps);
    }
}
