package dev.loop.spi;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.nio.ByteBuffer;

/**
 * A bound, non-blocking UDP socket, optionally connected to one peer. Not thread-safe: loop thread
 * only.
 *
 * <p>{@link IoReady#READ} means a datagram (or a pending error) can be received,
 * {@link IoReady#WRITE} that the kernel takes datagrams again. Each call moves one whole datagram:
 * the kernel never splits one, and neither does this interface. Buffers may be heap or direct.
 *
 * <p>Errors the kernel queues for a connected socket (an ICMP "port unreachable" for an earlier
 * datagram) come out of the next {@link #receive} or {@link #send} as a
 * {@link java.net.PortUnreachableException}; the socket stays usable.
 */
public interface IoDatagram extends IoHandle {

    /** The bound address (with the real port when bound to port 0). */
    @Override
    InetSocketAddress localAddress();

    /**
     * Receives one datagram into {@code dst} from its position, advancing it. A datagram longer than
     * the room left is cut to it by the kernel (the JDK cannot tell), so callers that must detect
     * truncation pass a buffer of at least 65,536 bytes, which holds any UDP datagram.
     *
     * @return the sender (on a connected socket, the peer), or {@code null} when no datagram is
     *         waiting
     * @throws java.net.PortUnreachableException for an ICMP error queued on a connected socket
     */
    InetSocketAddress receive(ByteBuffer dst) throws IOException;

    /**
     * Sends {@code src}'s remaining bytes as one datagram, all or nothing.
     *
     * @param target where to, or {@code null} on a connected socket (its peer)
     * @return true when the kernel took the datagram ({@code src}'s position is then its limit), false
     *         when it has no room now (nothing changed; {@link IoReady#WRITE} says when to retry)
     * @throws java.net.SocketException when the datagram is larger than the socket can send, or
     *                                  the target is not allowed (broadcast without
     *                                  {@code SO_BROADCAST})
     * @throws java.net.PortUnreachableException for an ICMP error queued on a connected socket
     */
    boolean send(ByteBuffer src, InetSocketAddress target) throws IOException;

    /**
     * Keeps a copy of {@code src}'s datagram for the next {@link #flushHeld}, so that the datagrams
     * sent while handling a batch of received ones leave in one system call ({@code sendmmsg}).
     * The caller flushes before the loop polls again. By default nothing is kept.
     *
     * @param target where to, or {@code null} on a connected socket
     * @return true when kept ({@code src}'s position is then its limit); false when this socket
     *         does not batch sends or has no room for it (nothing changed: send it with
     *         {@link #send} after flushing what is held)
     */
    default boolean hold(ByteBuffer src, InetSocketAddress target) {
        return false;
    }

    /**
     * Sends the datagrams {@link #hold} kept, in order.
     *
     * @param refused told of each datagram the kernel refused (as {@link #send} would have thrown);
     *                that datagram is dropped and the rest go on
     * @return how many are still held because the kernel has no room now ({@link IoReady#WRITE}
     *         says when to flush again)
     * @throws java.nio.channels.ClosedChannelException if the socket is closed
     */
    default int flushHeld(java.util.function.Consumer<IOException> refused) throws IOException {
        return 0;
    }

    /**
     * Connects to {@code remote}: datagrams go there by default, and only datagrams from there are
     * received. Immediate (UDP has no handshake).
     */
    void connect(InetSocketAddress remote) throws IOException;

    /** The connected peer, or {@code null} when not connected. */
    InetSocketAddress remoteAddress();

    /**
     * Joins the multicast {@code group} on interface {@code nif} (IPv4 or IPv6 groups).
     *
     * @throws java.net.SocketException if the kernel refuses (already joined, no such interface)
     */
    void joinGroup(InetAddress group, NetworkInterface nif) throws IOException;

    /**
     * Leaves a group joined with {@link #joinGroup}.
     *
     * @throws java.net.SocketException if it was not joined on {@code nif}
     */
    void leaveGroup(InetAddress group, NetworkInterface nif) throws IOException;

    /**
     * Sets one of the options {@link DatagramIo#open} takes.
     *
     * @throws UnsupportedOperationException if this backend cannot set {@code option}
     */
    <T> void setOption(SocketOption<T> option, T value) throws IOException;
}
