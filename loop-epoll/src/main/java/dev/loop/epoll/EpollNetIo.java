package dev.loop.epoll;

import dev.loop.linux.CopyBuffer;
import dev.loop.linux.NativeDatagramSocket;
import dev.loop.linux.NativeNetIo;
import dev.loop.spi.IoCounters;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.IoWatch;
import dev.loop.spi.Readiness;
import dev.loop.spi.UnixIo;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.LinuxSocket;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Sockets on epoll: Netty's {@link LinuxSocket} (non-blocking, close-on-exec) for TCP, UDP
 * ({@link EpollDatagram}) and Unix domain sockets ({@link EpollUnixIo}), and the program's own
 * descriptors ({@link EpollWatch}), each registered with the loop's Netty {@code EpollIoHandler}
 * through {@link EpollDriver}. The socket calls themselves are {@link NativeNetIo}'s, shared with
 * io_uring; this class supplies epoll's handles and counts what is registered. Not thread-safe:
 * loop thread only, or any thread while the loop is not running.
 *
 * <p>Options map to {@code LinuxSocket}'s setters, {@code SO_REUSEPORT} included, so several loops
 * can each listen on one port and let the kernel spread connections over them.
 */
final class EpollNetIo extends NativeNetIo<LinuxSocket> {
    /**
     * The loop's one direct buffer that heap buffers are copied through: large enough that a
     * gathering write of a connection's queue is one {@code send} for typical socket buffers.
     */
    static final int COPY_BUFFER_SIZE = 256 * 1024;

    private final EpollDriver handler;
    private UnixIo unix;
    private final CopyBuffer copy = new CopyBuffer(COPY_BUFFER_SIZE);
    private int registered;

    EpollNetIo(EpollDriver handler) {
        super(EpollBackendProvider.NAME);
        this.handler = handler;
    }

    IoRegistration register(EpollIoHandle handle) throws IOException {
        IoRegistration r = handler.register(handle);
        registered++;
        return r;
    }

    /** The driver's counts, which the sockets' reads and writes add to. */
    IoCounters counters() {
        return handler.counters;
    }

    /** Where receivers' failures go: the driver's, see {@link Readiness#deliver}. */
    Readiness.Failures failures() {
        return handler.failures();
    }

    /** A registered socket closed (or a watch ended); called once per registration. */
    void unregistered(EpollIoHandle handle) {
        registered--;
    }

    /** Sockets registered with epoll and not yet closed. */
    int registeredSockets() {
        return registered;
    }

    /** The loop's copy buffer; its contents are meaningless between calls. */
    ByteBuffer copyBuffer() {
        return copy.buffer();
    }

    /** The native address of {@link #copyBuffer()}; call that first. */
    long copyAddress() {
        return copy.address();
    }

    /** The loop's copy buffer itself, for the datagram calls. */
    CopyBuffer copy() {
        return copy;
    }

    @Override
    public IoSocket adopt(IoSocket accepted) throws IOException {
        enter();
        return EpollSocket.adopted(accepted, this);
    }

    @Override
    protected LinuxSocket newStream(InetSocketAddress address) {
        return LinuxSocket.newSocketStream(address.getAddress() instanceof Inet6Address);
    }

    @Override
    protected IoServerSocket listening(LinuxSocket socket, IoReady ready) {
        return new EpollServerSocket(this, socket, ready);
    }

    @Override
    protected IoSocket connecting(LinuxSocket socket, InetSocketAddress remote, IoReady ready, boolean connectedAtOnce) {
        return new EpollSocket(this, socket, ready, connectedAtOnce, remote);
    }

    @Override
    protected LinuxSocket newDatagram(InetSocketAddress local) {
        return LinuxSocket.newSocketDgram(local.getAddress() instanceof Inet6Address);
    }

    @Override
    protected NativeDatagramSocket datagram(LinuxSocket socket, InetSocketAddress local, IoReady ready) {
        return new EpollDatagram(this, socket, local.getAddress() instanceof Inet6Address, ready);
    }

    @Override
    protected IoWatch newWatch(int fd, IoReady ready) throws IOException {
        return new EpollWatch(this, fd, ready);
    }

    @Override
    public UnixIo unix() {
        if (unix == null) {
            unix = new EpollUnixIo(this);
        }
        return unix;
    }

    /** Every socket call enters here first: see {@link EpollDriver#enterFromLoopThread()}. */
    @Override
    public void enter() {
        handler.enterFromLoopThread();
    }
}
