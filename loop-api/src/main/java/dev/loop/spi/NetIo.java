package dev.loop.spi;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.Map;

/**
 * The socket side of a backend: opens non-blocking TCP sockets registered with the backend's
 * poller, and offers what else it can ({@link #datagrams()}, {@link #unix()}, {@link #watches()}:
 * each {@code null} where the backend has none). Not thread-safe: loop thread only. Obtained from
 * {@link IoDriver#net()}.
 *
 * <p>The contract is readiness, not completion: the backend reports "readable"/"writable" to an
 * {@link IoReady} from inside {@link IoDriver#poll}, and {@code loop-api} then makes the
 * non-blocking calls itself, in the loop's callback phase. See docs/adr/0004-io-spi.md.
 */
public interface NetIo {

    /**
     * Binds a listening socket.
     *
     * @param local       where to listen (port 0: any free port)
     * @param backlog     the accept queue length, or 0 for the backend's default
     * @param options     options set before binding: {@code SO_REUSEADDR}, {@code SO_REUSEPORT},
     *                    {@code SO_RCVBUF} from {@link java.net.StandardSocketOptions}
     * @param ready       receives {@link IoReady#READ} when a connection can be accepted
     * @throws java.net.BindException naming {@code local} when the address is in use
     * @throws UnsupportedOperationException when an option is not supported here (its message
     *                                       names the option and the backend)
     */
    IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException;

    /**
     * Starts a non-blocking connect. The socket reports {@link IoReady#WRITE} once the outcome is
     * known (ask for it with {@code interest(false, true)}); then call
     * {@link IoSocket#finishConnect()}.
     *
     * @param remote  the peer
     * @param options options set before connecting (buffer sizes must be, to count for the
     *                window), same keys as {@link IoSocket#setOption}
     * @param ready   receives this socket's readiness
     * @throws java.net.ConnectException when the connect failed at once (refused)
     */
    IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready) throws IOException;

    /**
     * Moves a socket that another loop of the same backend accepted to this loop (docs/adr/0005):
     * the accepting loop hands the socket over through this loop's inbox, and this loop's thread
     * calls {@code adopt}. The socket must not have been given an {@link IoSocket#attach receiver}
     * or {@linkplain IoHandle#interest interest} yet, so it is registered with no poller; the
     * handle passed in must not be used afterwards, except to {@link IoHandle#close()} it when
     * {@code adopt} fails.
     *
     * @return the same connection, registered with this loop's poller, with no receiver attached
     * @throws IOException if the socket cannot be registered here
     * @throws IllegalArgumentException if {@code accepted} comes from another backend
     */
    IoSocket adopt(IoSocket accepted) throws IOException;

    /**
     * Whether several sockets listening on one port with {@code SO_REUSEPORT} share its incoming
     * connections out among themselves (Linux does; BSD and macOS let them bind but hand every
     * connection to one). A loop group listens on every loop when this holds, and otherwise
     * accepts on one loop and hands connections to the others.
     */
    default boolean reusePortBalances() {
        return false;
    }

    /**
     * Whether these sockets are the kernel's own, so that what the kernel counts of them (Linux:
     * the datagrams it dropped, in {@code /proc/net/udp}) is theirs. False for a simulated network,
     * whose addresses may match other, real sockets.
     */
    default boolean kernelSockets() {
        return false;
    }

    /**
     * This backend's UDP sockets, or {@code null} when it has none: {@code loop-api} then fails
     * with an {@link UnsupportedOperationException} naming the backend.
     */
    default DatagramIo datagrams() {
        return null;
    }

    /** This backend's Unix domain stream sockets, or {@code null} when it has none. */
    default UnixIo unix() {
        return null;
    }

    /**
     * Watching the program's own channels or descriptors for readiness, or {@code null} when this
     * backend cannot.
     */
    default WatchIo watches() {
        return null;
    }
}
