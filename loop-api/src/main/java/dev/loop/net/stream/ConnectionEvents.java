package dev.loop.net.stream;

import dev.loop.engine.Engine;
import dev.loop.engine.LoopEvents;
import java.net.SocketAddress;

/**
 * The JFR events of a stream connection ({@code dev.loop.ConnectionOpened} and
 * {@code dev.loop.ConnectionClosed}), off unless a recording enables them. Never throws: an event
 * is worth less than the connection.
 */
final class ConnectionEvents {
    private ConnectionEvents() {
    }

    static boolean wantsClosed() {
        return LoopEvents.CONNECTION_CLOSED.on();
    }

    static void opened(StreamConnection c) {
        if (LoopEvents.CONNECTION_OPENED.on()) {
            LoopEvents.connectionOpened(Engine.of(c.loop()).stats().name(), local(c), c.remote);
        }
    }

    static void closed(StreamConnection c, Throwable failure, long in, long out, long nanos) {
        LoopEvents.connectionClosed(Engine.of(c.loop()).stats().name(), local(c), c.remote, in, out, nanos, failure);
    }

    private static SocketAddress local(StreamConnection c) {
        try {
            return c.localSocketAddress();
        } catch (RuntimeException closedAlready) {
            return null;
        }
    }
}
