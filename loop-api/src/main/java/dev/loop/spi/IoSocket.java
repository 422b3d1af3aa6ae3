package dev.loop.spi;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;

/**
 * A connected (or connecting) non-blocking stream socket, TCP or Unix domain. Not thread-safe: loop
 * thread only.
 *
 * <p>The backend does the raw system calls; everything above (buffering, futures, watermarks)
 * lives in {@code loop-api}. Buffers may be heap or direct: a backend whose calls need direct
 * memory copies through its own.
 */
public interface IoSocket extends IoHandle {

    /**
     * Sets who receives this socket's readiness. Sockets from {@link NetIo#connect} come with one;
     * accepted sockets get theirs here, before their first {@link #interest} call.
     */
    void attach(IoReady ready);

    /**
     * Completes a connect started by {@link NetIo#connect}, once {@link IoReady#WRITE} was reported.
     *
     * @return true when connected (also when already connected), false if still in progress
     * @throws IOException why the connect failed ({@link java.net.ConnectException} when refused)
     */
    boolean finishConnect() throws IOException;

    /**
     * Reads into {@code dst} from its position to its limit, advancing the position.
     *
     * @return bytes read ({@code > 0}), 0 if that would block, -1 at end of stream
     * @throws IOException when the connection failed (reset by the peer, for example)
     */
    int read(ByteBuffer dst) throws IOException;

    /**
     * Writes from {@code src}'s position to its limit without blocking, advancing the position.
     *
     * @return bytes written, 0 if that would block
     */
    int write(ByteBuffer src) throws IOException;

    /**
     * Gathering write of {@code srcs[offset .. offset+length)}, advancing their positions.
     *
     * @return bytes written, 0 if that would block
     */
    long write(ByteBuffer[] srcs, int offset, int length) throws IOException;

    /** Sends FIN: the peer reads end of stream; this side can still read. */
    void shutdownOutput() throws IOException;

    /** Closes with SO_LINGER 0, so the peer sees a reset instead of an orderly end. Idempotent. */
    void abort();

    /**
     * The peer's address, of the same kind as {@link #localAddress()}; for a Unix domain socket
     * whose peer never bound a name, a {@code UnixDomainSocketAddress} with an empty path (as the
     * JDK reports it).
     */
    SocketAddress remoteAddress();

    /**
     * Sets a socket option; backends support at least {@code TCP_NODELAY}, {@code SO_KEEPALIVE},
     * {@code SO_SNDBUF}, {@code SO_RCVBUF} and {@code SO_LINGER} from
     * {@link java.net.StandardSocketOptions}.
     *
     * @throws UnsupportedOperationException if this backend cannot set {@code option}
     */
    <T> void setOption(SocketOption<T> option, T value) throws IOException;
}
