package dev.loop.net;

import dev.loop.Loop;
import java.net.InetSocketAddress;
import java.util.List;

/** A listening TCP socket of a loop and the connections it accepted. Not thread-safe: loop thread only. */
public interface Server {

    Loop loop();

    /** Where it listens (the real port when it was asked to listen on port 0). */
    InetSocketAddress localAddress();

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
