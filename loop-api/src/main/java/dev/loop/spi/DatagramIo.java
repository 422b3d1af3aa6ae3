package dev.loop.spi;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.Map;

/**
 * The UDP side of a backend, offered through {@link NetIo#datagrams()}. Not thread-safe: loop
 * thread only, or any thread while the loop is not running.
 *
 * <p>Like the stream sockets, this is readiness only: the backend opens non-blocking sockets and
 * reports readiness; queueing, futures, watermarks and delivery to handlers live in
 * {@code loop-api} (docs/adr/0010-datagrams-and-unix-sockets.md).
 */
public interface DatagramIo {

    /**
     * Opens a non-blocking UDP socket of {@code local}'s family, sets {@code options}, then binds it.
     *
     * @param local   where to bind (port 0: any free port; a wildcard address: every interface)
     * @param options set before binding, from {@link java.net.StandardSocketOptions}:
     *                {@code SO_REUSEADDR}, {@code SO_REUSEPORT}, {@code SO_BROADCAST},
     *                {@code SO_SNDBUF}, {@code SO_RCVBUF}, {@code IP_MULTICAST_IF},
     *                {@code IP_MULTICAST_TTL}, {@code IP_MULTICAST_LOOP}
     * @param ready   receives this socket's readiness once {@linkplain IoDatagram#interest asked for}
     * @throws java.net.BindException naming {@code local} when it cannot be bound
     * @throws UnsupportedOperationException when an option is not supported here (its message names
     *                                       the option and the backend)
     */
    IoDatagram open(InetSocketAddress local, Map<SocketOption<?>, Object> options, IoReady ready) throws IOException;
}
