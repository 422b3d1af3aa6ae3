package dev.loop.net;

import dev.loop.Loop;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

/**
 * A listening stream socket of a loop (TCP, or Unix domain: {@link Unix}) and the connections it
 * accepted. Not thread-safe: loop thread only.
 */
public interface Server {

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

    /** Stops accepting; accepted connections stay open. */
    default void close() {
        close(false);
    }

    boolean isOpen();
}
