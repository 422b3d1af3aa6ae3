package dev.loop.net;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.nio.ByteBuffer;

/**
 * A UDP socket owned by a loop (asyncio's {@code DatagramTransport} with its protocol, and its
 * {@code sock_recvfrom}/{@code sock_sendto}). Not thread-safe: call it on the loop thread; the
 * futures it returns may be awaited from anywhere. Opened with {@link Datagrams}.
 *
 * <p><b>Receiving</b> comes in two styles, one at a time, as on a {@link Connection}: <em>pull</em>,
 * where {@link #receive()} or {@link #receive(ByteBuffer)} returns a future of the next
 * {@link Datagram} (one pending at a time; in a task, {@code Async.await(endpoint.receive())}), and
 * <em>push</em>, where a {@link DatagramHandler} set with {@link #setHandler} receives every
 * datagram in the loop's own buffer, without an allocation per datagram. Nothing is received while
 * neither asks: the kernel's buffer then fills and drops what does not fit, which is UDP.
 *
 * <p><b>Sending</b>: {@link #send(ByteBuffer, InetSocketAddress)} hands the datagram to the kernel
 * at once when it can and otherwise queues a copy, which is sent in order when the socket takes
 * datagrams again. {@link #isWritable()} and {@link #drain()} follow the
 * {@linkplain DatagramOptions#highWatermark() watermarks}, as a connection's writes do. A datagram
 * is sent whole or not at all: one larger than the socket can send fails its future with a
 * {@link java.net.SocketException} naming its size; nothing is ever cut.
 *
 * <p><b>Connected</b> endpoints ({@link Datagrams#connect}) send to their peer by default and
 * receive only from it; an ICMP error for an earlier datagram (the peer's port is closed) fails the
 * next receive or send with a {@link java.net.PortUnreachableException}, or reaches
 * {@link DatagramHandler#onError}, and the endpoint stays open.
 *
 * <p>When the loop closes, every endpoint it owns is closed and every pending future of it fails
 * with an {@link IOException}.
 */
public interface DatagramEndpoint {

    /** The loop this endpoint belongs to. */
    Loop loop();

    /**
     * Sends {@code data}'s remaining bytes as one datagram to {@code target}; on return {@code data}
     * is consumed (its position is its limit) and may be reused.
     *
     * @return a future done once the kernel took the datagram; it fails with a
     *         {@link java.net.SocketException} naming the size and target if the kernel refuses it
     *         (too large, a broadcast address without {@link DatagramOptions#broadcast()}, no route),
     *         with a {@link java.net.PortUnreachableException} on a connected endpoint whose peer
     *         refused an earlier one, and with an {@link IOException} if the endpoint closes first
     * @throws IllegalArgumentException if {@code target} is unresolved, an IPv6 address for an
     *                                  endpoint bound to IPv4, or this endpoint is connected to
     *                                  another address
     */
    LoopFuture<Void> send(ByteBuffer data, InetSocketAddress target);

    /**
     * Sends {@code data} to the connected peer, as {@link #send(ByteBuffer, InetSocketAddress)}.
     *
     * @throws IllegalStateException if this endpoint is not connected
     */
    LoopFuture<Void> send(ByteBuffer data);

    /** {@link #send(ByteBuffer, InetSocketAddress)} of a whole array. */
    default LoopFuture<Void> send(byte[] data, InetSocketAddress target) {
        return send(ByteBuffer.wrap(data), target);
    }

    /**
     * Receives the next datagram into a new buffer of exactly its size.
     *
     * @return a future of the datagram; it fails with a {@link java.net.PortUnreachableException}
     *         (see the class comment) or, if the endpoint closes first, a
     *         {@link java.nio.channels.ClosedChannelException} (an {@link IOException} when the
     *         loop closes). Cancelling it gives up the wait; no datagram is lost to it.
     * @throws IllegalStateException if another receive is pending or a handler is set
     */
    LoopFuture<Datagram> receive();

    /**
     * Receives the next datagram into {@code dst}, from its position; a datagram longer than the
     * room left fills it and is reported {@linkplain Datagram#truncated() truncated}.
     *
     * @see #receive()
     */
    LoopFuture<Datagram> receive(ByteBuffer dst);

    /**
     * Switches to push-style receiving: {@code handler} gets every datagram. {@code null} switches
     * back to pull style (nothing is received until asked).
     *
     * @throws IllegalStateException if a pull receive is pending
     */
    void setHandler(DatagramHandler handler);

    /** Stops receiving until {@link #resumeReceiving()} (push style). */
    void pauseReceiving();

    void resumeReceiving();

    /** False while more than the high watermark is queued, until the queue is back to the low one. */
    boolean isWritable();

    /** Bytes of datagrams queued for the kernel right now. */
    long queuedBytes();

    /**
     * A future done when at most the low watermark is queued (at once, if it is). Each call returns
     * a future of its own: cancelling one withdraws only that caller.
     */
    LoopFuture<Void> drain();

    /**
     * Joins the multicast {@code group} (IPv4 or IPv6) on interface {@code nif}: datagrams sent to
     * the group and this endpoint's port arrive here.
     *
     * @throws IllegalArgumentException if {@code group} is not a multicast address
     * @throws IllegalStateException    if already joined on {@code nif}
     * @throws IOException              naming the group and interface if the kernel refuses
     */
    void joinGroup(InetAddress group, NetworkInterface nif) throws IOException;

    /**
     * Leaves a group joined with {@link #joinGroup}.
     *
     * @throws IllegalStateException if not joined on {@code nif}
     */
    void leaveGroup(InetAddress group, NetworkInterface nif) throws IOException;

    /**
     * Sets a kernel option ({@link java.net.StandardSocketOptions}: {@code SO_BROADCAST},
     * {@code SO_SNDBUF}, {@code SO_RCVBUF}, {@code IP_MULTICAST_IF}, {@code IP_MULTICAST_TTL},
     * {@code IP_MULTICAST_LOOP}, ...).
     *
     * @throws UnsupportedOperationException naming the option and the backend if it cannot be set
     */
    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    /**
     * Graceful close: stops receiving (a pending receive fails with
     * {@link java.nio.channels.ClosedChannelException}), sends what is queued, then closes.
     * Idempotent.
     *
     * @return {@link #closeFuture()}
     */
    LoopFuture<Void> close();

    /** Closes at once, dropping the queue; the queued sends fail. */
    void abort();

    /**
     * Done (never failed) once the endpoint is closed, whatever closed it, and its port is free for
     * another socket to bind (on a completion backend such as {@code io_uring}, one poll after the
     * close: an operation in the kernel still holds the socket until it ends).
     */
    LoopFuture<Void> closeFuture();

    boolean isOpen();

    /** The bound address (with the real port when bound to port 0). */
    InetSocketAddress localAddress();

    /** The connected peer, or {@code null}. */
    InetSocketAddress remoteAddress();

    /** The options this endpoint was opened with. */
    DatagramOptions options();
}
