package dev.loop.spi;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A byte pipe, not thread-safe (loop thread only): non-blocking reads and writes, readiness,
 * half-close and close. The one contract between a stream connection and whatever carries its
 * bytes: a backend's {@link IoSocket} as it is, or a layer over another transport (TLS) that
 * consumes what the inner one reads, hands its own bytes up and writes its own bytes down. The
 * connection above holds only this type and sees no difference.
 *
 * <p><b>Readiness.</b> A transport reports to the one {@link IoReady} attached, only for the
 * directions asked for with {@link #interest}, and level-triggered: as long as a direction is
 * asked for and still ready, it is reported again. The reader may stop after a short read without
 * asking a second time, so a transport that holds bytes of its own (decrypted, or completed by the
 * kernel into its buffers) must report {@link IoReady#READ} while it still holds them, even when
 * its socket has nothing new; likewise {@link IoReady#WRITE} once a backlog of its own drains.
 * Reports may come from the backend's poll or from any callback on the loop thread: the receiver
 * only records them.
 *
 * <p><b>Completion-based backends</b> fit by owning their buffers: {@link #read} hands out bytes of
 * reads that already completed, {@link #write} takes bytes into a buffer it submits (and reports
 * how many it took, as a kernel's send buffer would), and a completion is reported as readiness.
 * Nothing above the transport changes (docs/adr/0011-completion-backends.md).
 */
public interface IoTransport {

    /**
     * Sets who receives this transport's readiness. Sockets from {@link NetIo#connect} come with
     * one; accepted sockets and layers get theirs here, before their first {@link #interest} call.
     */
    void attach(IoReady ready);

    /**
     * Finishes opening once {@link IoReady#WRITE} was reported while connecting: the TCP connect
     * for a socket; a layer may add its own opening (a TLS handshake) and answer false until done.
     *
     * @return true once bytes can flow (also when already open), false if still in progress
     * @throws IOException why opening failed ({@link java.net.ConnectException} when refused)
     */
    boolean finishConnect() throws IOException;

    /**
     * Reads into {@code dst} from its position to its limit, advancing the position.
     *
     * @return bytes read ({@code > 0}), 0 if none are available now, -1 at end of stream
     * @throws IOException when the connection failed (reset by the peer, for example)
     */
    int read(ByteBuffer dst) throws IOException;

    /**
     * Writes from {@code src}'s position to its limit without blocking, advancing the position.
     * Bytes taken are the transport's: the caller may reuse {@code src} at once.
     *
     * @return bytes taken, 0 if none can be now
     */
    int write(ByteBuffer src) throws IOException;

    /**
     * Gathering write of {@code srcs[offset .. offset+length)}, advancing their positions.
     *
     * @return bytes taken, 0 if none can be now
     */
    long write(ByteBuffer[] srcs, int offset, int length) throws IOException;

    /**
     * The capability to send {@code file}'s bytes without copying them through the JVM, or null
     * (the default) when this transport cannot send that file so: the caller then reads the file
     * and {@linkplain #write writes} its bytes. A layer that transforms bytes (TLS) never has it.
     * Asked before each chunk, so a transport replaced mid-file (STARTTLS) is asked again.
     */
    default IoFileSender fileSender(FileChannel file) {
        return null;
    }

    /** Ends the output after what was taken so far: the peer reads end of stream; this side can still read. */
    void shutdownOutput() throws IOException;

    /**
     * Sets which readiness to report. Callers pass only changes (they remember their last pair),
     * so an implementation need not compare again. Ignored once closed.
     */
    void interest(boolean read, boolean write);

    /** Closes at once; readiness is no longer reported. Idempotent. */
    void close();

    /** Closes at once so the peer sees a reset (SO_LINGER 0) instead of an orderly end. Idempotent. */
    void abort();

    /**
     * The address the socket is bound to: an {@link java.net.InetSocketAddress} for TCP, a
     * {@link java.net.UnixDomainSocketAddress} (or a backend's own type for a Linux abstract name)
     * for a Unix domain socket.
     */
    SocketAddress localAddress();

    /**
     * The peer's address, of the same kind as {@link #localAddress()}; for a Unix domain socket
     * whose peer never bound a name, a {@code UnixDomainSocketAddress} with an empty path (as the
     * JDK reports it).
     */
    SocketAddress remoteAddress();
}
