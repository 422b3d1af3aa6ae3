package dev.loop.net;

import java.nio.ByteBuffer;

/**
 * Push-style reading (asyncio's {@code Protocol}): the connection calls these on the loop thread,
 * in its callback phase, never during a poll.
 */
public interface ConnectionHandler {

    /**
     * Bytes arrived. {@code data} is the connection's own buffer, valid only during this call:
     * consume it or copy it ({@link Connection#write} copies what it queues, so echoing it is safe).
     */
    void onData(Connection connection, ByteBuffer data);

    /** The peer shut its output. By default the connection is closed (after flushing). */
    default void onEof(Connection connection) {
        connection.close();
    }

    /**
     * The server that accepted this connection began a {@linkplain Server#shutdown graceful
     * shutdown}: it accepts no more, and will close this connection at its deadline. By default
     * nothing happens, and the connection may finish what it is doing; a protocol with idle
     * connections closes them here (an HTTP server, a keep-alive connection between requests),
     * and one that can say "going away" says it. Called once, on the loop thread, only while the
     * connection is open and this handler is set.
     */
    default void onServerShutdown(Connection connection) {
    }

    /**
     * The connection closed.
     *
     * @param error why, or {@code null} for a normal close
     */
    default void onClosed(Connection connection, Throwable error) {
    }
}
