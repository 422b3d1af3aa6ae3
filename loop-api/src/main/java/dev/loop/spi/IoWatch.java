package dev.loop.spi;

/**
 * A channel or descriptor watched for readiness on the program's behalf ({@link WatchIo}). Not
 * thread-safe: loop thread only. Readiness is level-triggered, as for sockets.
 */
public interface IoWatch {

    /** Sets which readiness to report; unchanged pairs cost nothing. Ignored once closed. */
    void interest(boolean read, boolean write);

    /**
     * Stops watching; the channel or descriptor itself stays open (it is the program's).
     * Idempotent.
     */
    void close();

    /** False once {@link #close()}d. */
    boolean isOpen();
}
