package dev.loop.net;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * A {@link Transport} that is a backend's {@link IoSocket} and nothing more; not thread-safe (loop
 * thread only).
 *
 * <p>Every call goes straight to the socket: readiness from the backend reaches the attached
 * receiver without passing through here, so the adapter adds no work to the hot path, and a
 * ready socket answers a read or write with exactly one system call as before.
 */
final class SocketTransport implements Transport {
    private final IoSocket socket;
    private final SocketAddress local;  // null: ask the socket
    private final SocketAddress remote;

    /** Wraps a socket that is connected (accepted) or connecting. */
    SocketTransport(IoSocket socket) {
        this(socket, null, null);
    }

    /**
     * Wraps a Unix domain socket whose names its opener knows: a backend cannot report every kind
     * of Unix address (a Linux abstract name is no {@code UnixDomainSocketAddress}).
     */
    SocketTransport(IoSocket socket, SocketAddress local, SocketAddress remote) {
        this.socket = socket;
        this.local = local;
        this.remote = remote;
    }

    /** The backend's socket, for what only it can answer (a Unix peer's credentials). */
    IoSocket socket() {
        return socket;
    }

    /**
     * Starts a non-blocking connect to {@code remote}; {@code ready} hears {@link IoReady#WRITE}
     * once its outcome is known, then {@link #finishConnect()} tells it.
     *
     * @throws IOException when the connect failed at once (refused)
     */
    static SocketTransport connect(NetIo io, InetSocketAddress remote, Map<SocketOption<?>, Object> options,
                                   IoReady ready) throws IOException {
        return new SocketTransport(io.connect(remote, options, ready));
    }

    @Override
    public void attach(IoReady ready) {
        socket.attach(ready);
    }

    @Override
    public boolean finishConnect() throws IOException {
        return socket.finishConnect();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return socket.read(dst);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return socket.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return socket.write(srcs, offset, length);
    }

    @Override
    public void shutdownOutput() throws IOException {
        try {
            socket.shutdownOutput();
        } catch (java.nio.channels.NotYetConnectedException e) {
            // ENOTCONN from a socket that was connected: the peer reset it and the kernel dropped
            // the connection before we read the reset. The native backends' library says so with
            // an unchecked exception, which would escape the caller (a timer's callback, say).
            java.net.SocketException gone = new java.net.SocketException("connection to " + remoteAddress()
                    + " is gone (reset by the peer); its output cannot be shut down");
            gone.initCause(e);
            throw gone;
        }
    }

    @Override
    public void interest(boolean read, boolean write) {
        socket.interest(read, write);
    }

    @Override
    public void close() {
        socket.close();
    }

    @Override
    public void abort() {
        socket.abort();
    }

    @Override
    public SocketAddress localAddress() {
        return local != null ? local : socket.localAddress();
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote != null ? remote : socket.remoteAddress();
    }

    @Override
    public String toString() {
        return "SocketTransport[" + socket + "]";
    }
}
