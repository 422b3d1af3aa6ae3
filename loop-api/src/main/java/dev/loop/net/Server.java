package dev.loop.net;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * A listening stream socket of a loop (TCP, or Unix domain: {@link Unix}) and the connections it
 * accepted. Not thread-safe: loop thread only.
 *
 * <p>Three ways to stop: {@link #close()} stops accepting and leaves the accepted connections to
 * whoever holds them; {@link #shutdown(Duration)} stops accepting, lets them finish, and closes
 * what is still open at a deadline; {@link #close(boolean) close(true)} closes them all at once.
 */
public interface Server extends AutoCloseable {

    Loop loop();

    /**
     * Where it listens (the real port when it was asked to listen on port 0).
     *
     * @throws UnsupportedOperationException for a Unix domain socket server: use
     *                                       {@link #localSocketAddress()}
     */
    InetSocketAddress localAddress();

    /**
     * Where it listens, of any kind: an {@link InetSocketAddress} for TCP, the path
     * ({@link java.net.UnixDomainSocketAddress}) or {@link LinuxAbstractAddress} of a Unix domain
     * socket server.
     */
    default SocketAddress localSocketAddress() {
        return localAddress();
    }

    /** The accepted connections still open. */
    List<Connection> connections();

    /**
     * Stops accepting and closes the listening socket; with {@code closeConnections}, closes every
     * accepted connection gracefully as well. Idempotent.
     */
    void close(boolean closeConnections);

    /**
     * Stops accepting and closes the listening socket (a Unix socket's file is removed); the
     * accepted connections stay open, and their owners close them. Idempotent.
     */
    @Override
    default void close() {
        close(false);
    }

    /**
     * Graceful shutdown: stops accepting at once (as {@link #close()}), tells each accepted
     * connection's handler ({@link ConnectionHandler#onServerShutdown}), then waits for the
     * connections to close on their own. Those still open after {@code deadline} (on the loop's
     * clock) are closed gracefully, what they had queued sent first; one whose peer does not take
     * its queue within {@link #SHUTDOWN_FLUSH_LIMIT} more is aborted, so the whole takes at most
     * {@code deadline} plus that. A connection still in its TLS handshake is closed at once: nobody
     * has seen it yet. Calling it again returns the same future; the first deadline holds.
     *
     * @param deadline how long the connections may take to finish; {@link Duration#ZERO}: close them now
     * @return a future done (never failed) once every accepted connection is closed
     */
    LoopFuture<Void> shutdown(Duration deadline);

    /**
     * How long {@link #shutdown} gives a connection closed at its deadline to send what it had
     * queued before aborting it: a peer that stopped reading must not hold a shutdown forever.
     */
    Duration SHUTDOWN_FLUSH_LIMIT = Duration.ofSeconds(5);

    boolean isOpen();
}
