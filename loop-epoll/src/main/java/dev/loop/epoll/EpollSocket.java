package dev.loop.epoll;

import dev.loop.linux.NativeErrors;
import dev.loop.linux.NativeStreams;
import dev.loop.spi.IoFileSender;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A non-blocking stream socket on epoll, TCP or Unix domain. Not thread-safe: loop thread only.
 *
 * <p>Direct buffers go to the kernel as they are ({@code recv}/{@code send} on their memory,
 * {@code writev} for a gathering write of direct buffers); heap buffers are copied through the
 * loop's one direct buffer ({@link EpollNetIo#copyBuffer()}), since the native calls need memory
 * that does not move. Netty's calls do not move buffer positions: this class does.
 */
final class EpollSocket extends EpollChannel implements IoSocket {
    // Cached: combining EpollIoOps with with() allocates for most combinations.
    private static final EpollIoOps READ_OPS = EpollIoOps.EPOLLIN.with(EpollIoOps.EPOLLRDHUP);
    private static final EpollIoOps WRITE_OPS = EpollIoOps.EPOLLOUT;
    private static final EpollIoOps READ_WRITE_OPS = READ_OPS.with(EpollIoOps.EPOLLOUT);
    /** writev's byte limit: no limit beyond the kernel's own. */
    private static final long NO_WRITE_LIMIT = Long.MAX_VALUE;

    private final boolean unix;
    private boolean connected;
    private SocketAddress local;
    private SocketAddress remote;

    /** A TCP socket; its local address is asked of the kernel when first wanted. */
    /**
     * {@code accepted}, which another loop of the group accepted, as a socket of {@code net}'s loop
     * (see {@code NetIo.adopt}). The accepting loop never registered it (registration waits for the
     * first interest), so the descriptor simply changes hands; the old handle is dropped. Only this
     * class can tell its own sockets from another backend's: the SPI cannot name either type.
     *
     * @throws IllegalArgumentException if {@code accepted} is another backend's
     */
    static EpollSocket adopted(IoSocket accepted, EpollNetIo net) {
        if (!(accepted instanceof EpollSocket s)) {
            throw new IllegalArgumentException("not an epoll socket: " + accepted);
        }
        return new EpollSocket(net, s.socket, null, true, s.remoteAddress());
    }

    EpollSocket(EpollNetIo net, LinuxSocket socket, IoReady ready, boolean connected, SocketAddress remote) {
        this(net, socket, ready, connected, null, remote, false);
    }

    private EpollSocket(EpollNetIo net, LinuxSocket socket, IoReady ready, boolean connected, SocketAddress local,
                        SocketAddress remote, boolean unix) {
        super(net, socket, ready);
        this.connected = connected;
        this.local = local;
        this.remote = remote;
        this.unix = unix;
    }

    /**
     * A Unix domain socket with the names its opener knows: Netty reads a socket's own name only
     * as an IP address, so these are never asked of the kernel.
     */
    static EpollSocket unix(EpollNetIo net, LinuxSocket socket, IoReady ready, boolean connected, SocketAddress local,
                            SocketAddress remote) {
        return new EpollSocket(net, socket, ready, connected, local, remote, true);
    }

    @Override
    EpollIoOps opsFor(boolean read, boolean write) {
        // While connecting, "write" is EPOLLOUT as well: it reports the connect's outcome.
        if (read) {
            return write ? READ_WRITE_OPS : READ_OPS;
        }
        return write ? WRITE_OPS : PAUSED;
    }

    @Override
    public void attach(IoReady r) {
        this.ready = r;
    }

    void connectedAtOnce() {
        connected = true;
    }

    @Override
    public boolean finishConnect() throws IOException {
        if (connected) {
            return true;
        }
        if (!NativeStreams.finishConnect(socket, remote)) {
            return false;
        }
        connected = true;
        return true;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        try {
            return recv(dst);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        }
    }

    private int recv(ByteBuffer dst) throws IOException {
        int pos = dst.position();
        int room = dst.limit() - pos;
        if (room == 0) {
            return 0;
        }
        net.counters().increment(EpollDriver.READ);
        if (dst.isDirect()) {
            int n = socket.recv(dst, pos, dst.limit());
            if (n > 0) {
                dst.position(pos + n);
            }
            return n;
        }
        ByteBuffer copy = net.copyBuffer();
        int n = socket.recvAddress(net.copyAddress(), 0, Math.min(room, copy.capacity()));
        if (n > 0) {
            dst.put(copy.clear().limit(n));
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        try {
            return send(src);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        }
    }

    private int send(ByteBuffer src) throws IOException {
        int pos = src.position();
        int len = src.limit() - pos;
        if (len == 0) {
            return 0;
        }
        net.counters().increment(EpollDriver.WRITE);
        int n;
        if (src.isDirect()) {
            n = socket.send(src, pos, src.limit());
        } else {
            ByteBuffer copy = net.copyBuffer().clear(); // absolute puts are bounded by the limit
            int chunk = Math.min(len, copy.capacity());
            copy.put(0, src, pos, chunk); // absolute: neither position moves
            n = socket.sendAddress(net.copyAddress(), 0, chunk);
        }
        if (n > 0) {
            src.position(pos + n);
        }
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        boolean allDirect = true;
        for (int i = offset; i < offset + length; i++) {
            if (!srcs[i].isDirect()) {
                allDirect = false;
                break;
            }
        }
        long n;
        net.counters().increment(EpollDriver.WRITE);
        try {
            n = allDirect ? socket.writev(srcs, offset, length, NO_WRITE_LIMIT) : gatherThroughCopy(srcs, offset, length);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        }
        advance(srcs, offset, length, n);
        return n;
    }

    /**
     * Copies the buffers, in order, into the loop's direct buffer until it is full, and sends that
     * in one call: for heap buffers this is the one copy any native write needs, and one
     * {@code send} of the sum instead of a {@code writev} of copies.
     */
    private long gatherThroughCopy(ByteBuffer[] srcs, int offset, int length) throws IOException {
        ByteBuffer copy = net.copyBuffer().clear(); // absolute puts are bounded by the limit
        int filled = 0;
        for (int i = offset; i < offset + length && filled < copy.capacity(); i++) {
            ByteBuffer b = srcs[i];
            int chunk = Math.min(b.remaining(), copy.capacity() - filled);
            copy.put(filled, b, b.position(), chunk);
            filled += chunk;
        }
        return filled == 0 ? 0 : socket.sendAddress(net.copyAddress(), 0, filled);
    }

    /** Moves the positions past the {@code n} bytes written, as a JDK gathering write does. */
    private static void advance(ByteBuffer[] srcs, int offset, int length, long n) {
        for (int i = offset; i < offset + length && n > 0; i++) {
            ByteBuffer b = srcs[i];
            int take = (int) Math.min(b.remaining(), n);
            b.position(b.position() + take);
            n -= take;
        }
    }

    /** {@code sendfile(2)} straight to this socket's descriptor ({@link EpollFileSender}). */
    @Override
    public IoFileSender fileSender(FileChannel file) {
        return EpollFileSender.of(socket, file);
    }

    @Override
    public void shutdownOutput() throws IOException {
        NativeStreams.shutdownOutput(socket);
    }

    @Override
    public void abort() {
        if (!isOpen()) {
            return;
        }
        NativeStreams.lingerZero(socket);
        close();
    }

    @Override
    public SocketAddress localAddress() {
        if (local == null && !unix && isOpen()) {
            local = socket.localAddress();
        }
        return local;
    }

    @Override
    public SocketAddress remoteAddress() {
        if (remote == null && !unix && isOpen()) {
            remote = socket.remoteAddress();
        }
        return remote;
    }

    @Override
    public UnixIo.IoPeerCredentials peerCredentials() throws IOException {
        return NativeStreams.peerCredentials(socket);
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        net.apply(socket, option, value);
    }

    @Override
    public String toString() {
        return "EpollSocket[" + localAddress() + " -> " + remoteAddress() + "]";
    }
}
