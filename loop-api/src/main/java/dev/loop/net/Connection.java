package dev.loop.net;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A TCP connection owned by a loop. Not thread-safe: call it on the loop thread (from callbacks,
 * or from tasks running on the loop); the futures it returns may be awaited from anywhere.
 *
 * <p>Threads: an operation that changes the connection (the reads, {@code setHandler},
 * {@code pauseReading}/{@code resumeReading}, {@code write}, {@code sendFile}, {@code drain}, {@code shutdownOutput},
 * {@code close}, {@code abort}) called on another thread while the loop runs throws
 * {@link IllegalStateException} naming the thread and the loop: it would race the loop. Hand such work
 * to the loop with {@link Loop#callSoon}. While the loop is not running any thread may call them
 * (to set up before {@link Loop#runForever()}). The queries ({@code isOpen}, {@code isWritable},
 * {@code queuedBytes}, the addresses) may be read anywhere but are only a snapshot off the loop
 * thread; {@link #closeFuture()} and the returned futures are thread-safe.
 *
 * <p>Cancelling: cancelling a pending read's future (directly, or by cancelling the task awaiting
 * it, a timeout around it, a task group shutting down) withdraws the read. No byte is lost: bytes
 * that arrive afterwards go to the next read, and what a cancelled {@code readExactly},
 * {@code readUntil} or {@code readLine} had already buffered stays buffered for the next read.
 * Each {@link #drain()} returns a future of its own; cancelling one withdraws only that caller.
 * Cancelling a write's future does not withdraw its bytes.
 *
 * <p>Reading comes in two styles, one at a time: <em>pull</em>, where each {@link #read},
 * {@link #readExactly}, {@link #readUntil} or {@link #readLine} returns a future (one pending at a
 * time), and <em>push</em>, where a {@link ConnectionHandler} set with {@link #setHandler} receives
 * every chunk as it arrives (asyncio's {@code Protocol.data_received}). Nothing is read from the
 * socket while neither asks for data, so a connection nobody reads pushes back on its peer.
 *
 * <p>Writing: {@link #write} hands bytes to the kernel at once when it can and queues a copy of
 * the rest. The queue is unbounded, but {@link #isWritable()} and {@link #drain()} say when it holds
 * more than the {@linkplain ConnectionOptions#highWatermark() high watermark}: a writer that waits for
 * {@code drain()} keeps memory bounded however slow the reader is.
 *
 * <p>When the loop closes, every connection it owns is closed and every pending future of it fails
 * with an {@link java.io.IOException}.
 */
public interface Connection {

    /** The loop this connection belongs to. */
    Loop loop();

    /**
     * Reads at least one byte into {@code dst} (from its position to its limit). Bytes already
     * buffered by the stream helpers are returned first.
     *
     * @return a future of the count read (at least 1), or -1 at end of stream; it fails with an
     *         {@link java.io.IOException} if the connection fails or closes first, and with a
     *         {@link java.net.SocketTimeoutException} after the read timeout
     * @throws IllegalArgumentException if {@code dst} has no room (nothing remaining, or read-only):
     *         such a read could never complete, and a count of 0 would spin a read loop
     * @throws IllegalStateException if another read is pending or a handler is set
     */
    LoopFuture<Integer> read(ByteBuffer dst);

    /**
     * Reads exactly {@code n} bytes ({@code n} = 0 completes at once with an empty buffer).
     *
     * @return a future of a buffer holding them (position 0, limit n); fails with
     *         {@link java.io.EOFException} if the stream ends first
     */
    LoopFuture<ByteBuffer> readExactly(int n);

    /**
     * Reads up to and including the first {@code delimiter}.
     *
     * @param maxLength the most bytes, delimiter included, to buffer while looking for it
     * @return a future of the bytes (delimiter included); fails with {@link LimitExceededException}
     *         when {@code maxLength} bytes hold no delimiter (they stay buffered), or with
     *         {@link java.io.EOFException} if the stream ends first
     */
    LoopFuture<ByteBuffer> readUntil(byte[] delimiter, int maxLength);

    /**
     * Reads one line ended by {@code \n}, decoded as UTF-8, without its {@code \n} or
     * {@code \r\n}. At end of stream: the last unterminated line, then {@code null}.
     *
     * @param maxLength the most bytes, line ending included
     * @return a future of the line; fails with {@link LimitExceededException} for a longer line
     */
    LoopFuture<String> readLine(int maxLength);

    /**
     * Switches to push-style reading: {@code handler} receives every chunk read. {@code null}
     * switches back to pull style (nothing is read until asked).
     *
     * @throws IllegalStateException if a pull read is pending
     */
    void setHandler(ConnectionHandler handler);

    /** Stops reading until {@link #resumeReading()} (push style); the peer is then pushed back on. */
    void pauseReading();

    void resumeReading();

    /**
     * Writes {@code src}'s remaining bytes; on return {@code src} is consumed (its position is its
     * limit) and may be reused: what the kernel did not take at once was copied.
     *
     * @return a future done once every byte of this write is handed to the kernel; it fails with an
     *         {@link java.io.IOException} if the connection fails or closes first
     */
    LoopFuture<Void> write(ByteBuffer src);

    /** Writes {@code bytes} as {@link #write(ByteBuffer)} does. */
    default LoopFuture<Void> write(byte[] bytes) {
        return write(ByteBuffer.wrap(java.util.Objects.requireNonNull(bytes, "bytes")));
    }

    /**
     * Sends {@code count} bytes of {@code file} from {@code position}, in order with the other
     * writes: bytes written before go first, bytes written after wait for the file. The file's
     * own position does not move, so one channel may serve several connections at once.
     *
     * <p>Where the backend can (select through {@link FileChannel#transferTo}, epoll and io_uring
     * through {@code sendfile(2)}) the kernel copies the bytes from the page cache to the socket
     * and nothing passes through the JVM. Over TLS, or where the backend cannot, the file is read
     * into a buffer of at most 64 KiB at a time, the next chunk only once the last was taken: at
     * the pace of the peer, however large the file. Either way the unsent bytes count as queued
     * ({@link #queuedBytes()}, the watermarks, {@link #drain()}) until they leave. The reads and
     * {@code sendfile} run on the loop thread: a file not in the page cache makes the loop wait
     * for the disk.
     *
     * <p>Cancelling the future stops the send after the chunk in progress; the peer then has
     * fewer bytes than {@code count}, and the bytes written after the file follow at once. A
     * protocol that announced the length (HTTP's {@code Content-Length}) should abort the
     * connection instead.
     *
     * @return a future of {@code count} once every byte was handed to the kernel; it fails with an
     *         {@link java.io.EOFException} naming the position where the file ends if the file is
     *         shorter than {@code position + count} (checked first, so nothing was sent, and again
     *         where a file that shrank ends; the connection stays open), and with an
     *         {@link java.io.IOException} like {@link #write}'s if the connection fails or closes
     *         first (a {@link java.net.SocketException} when the peer resets it, on every backend)
     * @throws IllegalArgumentException if {@code position} or {@code count} is negative
     */
    LoopFuture<Long> sendFile(FileChannel file, long position, long count);

    /** False while more than the high watermark is queued, until the queue is back to the low one. */
    boolean isWritable();

    /** Bytes queued for the kernel right now. */
    long queuedBytes();

    /**
     * A future done when the outgoing queue holds at most the low watermark (at once, if it does).
     * Every waiting caller gets a future of its own: cancelling one leaves the others waiting. Fails
     * like writes do.
     */
    LoopFuture<Void> drain();

    /**
     * Half-close: after the queued bytes are sent, the peer reads end of stream. This side can still
     * read. Writes afterwards fail. Over TLS this sends close_notify first; a TLS 1.2 peer answers
     * with its own and stops sending (only TLS 1.3 keeps the other direction open).
     */
    void shutdownOutput();

    /**
     * Graceful close: stops reading, sends what is queued, then closes. Pending reads fail with
     * {@link java.nio.channels.ClosedChannelException}. Idempotent. Over TLS, close_notify goes
     * after the queued bytes, and the socket closes once it is sent.
     *
     * @return {@link #closeFuture()}
     */
    LoopFuture<Void> close();

    /** Closes at once with a reset (SO_LINGER 0), dropping the queue; pending writes fail. Over TLS, without close_notify. */
    void abort();

    /**
     * Upgrades this plaintext connection to TLS (STARTTLS), as a client if this side connected and
     * as a server if it accepted. Call it between reads, right after the last plaintext message:
     * bytes written before the call go out unencrypted first, bytes the stream helpers read past the
     * last message are the start of the peer's TLS, and everything read or written afterwards is
     * encrypted (reads and writes made during the handshake wait for it).
     *
     * @return a future of this same connection once the handshake is done; if the handshake fails
     *         it fails with an {@link javax.net.ssl.SSLException} saying why, and the connection closes
     * @throws IllegalStateException if a read is pending, or the connection is already TLS
     */
    LoopFuture<Connection> startTls(TlsOptions tls);

    /** What the TLS handshake agreed on (protocol, cipher suite, ALPN, peer certificates); null without TLS, or before the handshake finished. */
    TlsInfo tls();

    /** Done (never failed) once the connection is closed, whatever closed it. */
    LoopFuture<Void> closeFuture();

    boolean isOpen();

    /** True once end of stream was read. */
    boolean isInputShutdown();

    /**
     * The local IP address and port; null while connecting.
     *
     * @throws UnsupportedOperationException on a Unix domain socket, which has no IP address: use
     *                                       {@link #localSocketAddress()}
     */
    InetSocketAddress localAddress();

    /**
     * The peer's IP address and port.
     *
     * @throws UnsupportedOperationException on a Unix domain socket: use {@link #remoteSocketAddress()}
     */
    InetSocketAddress remoteAddress();

    /**
     * The local address of any kind: an {@link InetSocketAddress} over TCP, a
     * {@link java.net.UnixDomainSocketAddress} (empty path when unnamed, as a client's usually is)
     * or a {@link LinuxAbstractAddress} over a Unix domain socket; null while connecting.
     */
    default SocketAddress localSocketAddress() {
        return localAddress();
    }

    /** The peer's address of any kind (see {@link #localSocketAddress()}). */
    default SocketAddress remoteSocketAddress() {
        return remoteAddress();
    }

    /**
     * The credentials of the process at the other end of a Unix domain socket connection
     * ({@code SO_PEERCRED}: as they were when it connected, or when the server listened).
     *
     * @throws UnsupportedOperationException over TCP, or naming the backend where it cannot read
     *                                       them ({@code select}: the JDK gives names, not ids)
     * @throws java.nio.channels.ClosedChannelException if the connection is closed
     */
    PeerCredentials peerCredentials() throws java.io.IOException;

    /** The options this connection was opened with. */
    ConnectionOptions options();
}
