package dev.loop.epoll;

import dev.loop.spi.DatagramIo;
import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.IoWatch;
import dev.loop.spi.NetIo;
import dev.loop.spi.Readiness;
import dev.loop.linux.CopyBuffer;
import dev.loop.linux.NativeErrors;
import dev.loop.linux.NativeListen;
import dev.loop.linux.NativeSocketOptions;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import dev.loop.spi.WatchIo;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.LinuxSocket;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Sockets on epoll: Netty's {@link LinuxSocket} (non-blocking, close-on-exec) for TCP, UDP
 * ({@link EpollDatagram}) and Unix domain sockets ({@link EpollUnixIo}), and the program's own
 * descriptors ({@link EpollWatch}), each registered with the loop's Netty {@code EpollDriver}. Not thread-safe: loop thread only, or any thread
 * while the loop is not running.
 *
 * <p>Options map to {@code LinuxSocket}'s setters, {@code SO_REUSEPORT} included, so several loops
 * can each listen on one port and let the kernel spread connections over them.
 */
final class EpollNetIo implements NetIo {
    /**
     * The loop's one direct buffer that heap buffers are copied through: large enough that a
     * gathering write of a connection's queue is one {@code send} for typical socket buffers.
     */
    static final int COPY_BUFFER_SIZE = 256 * 1024;
    /** listen(2)'s backlog when the caller leaves it to the backend (the kernel caps it at somaxconn). */
    static final int DEFAULT_BACKLOG = 1024;

    private final EpollDriver handler;
    private final DatagramIo datagrams = this::openDatagram;
    private final WatchIo watches = new WatchIo() {
        @Override
        public IoWatch watch(int fd, IoReady ready) throws IOException {
            enter();
            // Netty keeps one registration per descriptor and would let a second one replace the
            // first silently (an assertion only): refuse it here, naming the descriptor
            if (!watchedFds.add(fd)) {
                throw new IOException("cannot watch file descriptor " + fd + ": it is already watched by this loop");
            }
            try {
                return new EpollWatch(EpollNetIo.this, fd, ready);
            } catch (IOException | RuntimeException e) {
                watchedFds.remove(fd);
                throw e;
            }
        }

        @Override
        public IoWatch watch(SelectableChannel channel, IoReady ready) {
            throw new UnsupportedOperationException("cannot watch a JDK SelectableChannel: the JDK does not"
                    + " give out its file descriptor; watch a descriptor (Watch.fd), or use backend select");
        }
    };
    /** The descriptors the program's watches hold (boxed: a watch is set up rarely, never per event). */
    private final Set<Integer> watchedFds = new HashSet<>();
    private UnixIo unix;
    private final CopyBuffer copy = new CopyBuffer(COPY_BUFFER_SIZE);
    private int registered;

    EpollNetIo(EpollDriver handler) {
        this.handler = handler;
    }

    IoRegistration register(EpollIoHandle handle) throws IOException {
        IoRegistration r = handler.register(handle);
        registered++;
        return r;
    }

    /** Where receivers' failures go: the driver's, see {@link Readiness#deliver}. */
    Readiness.Failures failures() {
        return handler.failures();
    }

    /** A watch of {@code fd} ended: the descriptor may be watched again. */
    void unwatched(int fd) {
        watchedFds.remove(fd);
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
        if (!(accepted instanceof EpollSocket s)) {
            throw new IllegalArgumentException("not an epoll socket: " + accepted);
        }
        handler.enterFromLoopThread();
        // The accepting loop never registered it (registration waits for the first interest), so
        // the descriptor simply changes hands; the old handle is dropped.
        return new EpollSocket(this, s.socket, null, true, s.remoteAddress());
    }

    /** Linux's SO_REUSEPORT hashes incoming connections over every socket listening on the port. */
    @Override
    public boolean reusePortBalances() {
        return true;
    }

    @Override
    public IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        handler.enterFromLoopThread();
        LinuxSocket s = NativeErrors.opened(() -> LinuxSocket.newSocketStream(local.getAddress() instanceof Inet6Address));
        try {
            NativeListen.bindAndListen(s, local, local, backlog, DEFAULT_BACKLOG, options, EpollBackendProvider.NAME);
            return new EpollServerSocket(this, s, ready);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        handler.enterFromLoopThread();
        LinuxSocket s = NativeErrors.opened(() -> LinuxSocket.newSocketStream(remote.getAddress() instanceof Inet6Address));
        try {
            applyAll(s, options);
            EpollSocket socket = new EpollSocket(this, s, ready, false, remote);
            boolean done;
            try {
                done = s.connect(remote); // false: EINPROGRESS, EPOLLOUT reports the outcome
            } catch (IOException e) {
                socket.close();
                throw NativeErrors.translate(Call.CONNECT, e, remote);
            }
            if (done) {
                socket.connectedAtOnce();
            }
            return socket;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }


    @Override
    public DatagramIo datagrams() {
        return datagrams;
    }

    private IoDatagram openDatagram(InetSocketAddress local, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        handler.enterFromLoopThread();
        boolean ipv6 = local.getAddress() instanceof Inet6Address;
        LinuxSocket s = NativeErrors.opened(() -> LinuxSocket.newSocketDgram(ipv6));
        try {
            EpollDatagram d = new EpollDatagram(this, s, ipv6, ready);
            d.calls().applyAll(options);
            d.calls().bind(local);
            return d;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public UnixIo unix() {
        if (unix == null) {
            unix = new EpollUnixIo(this);
        }
        return unix;
    }

    @Override
    public WatchIo watches() {
        return watches;
    }

    /** Every socket call enters here first: see {@link EpollDriver#enterFromLoopThread()}. */
    void enter() {
        handler.enterFromLoopThread();
    }

    static void applyAll(LinuxSocket s, Map<SocketOption<?>, Object> options) throws IOException {
        NativeSocketOptions.applyAll(s, options, EpollBackendProvider.NAME);
    }

    /**
     * Sets one {@link java.net.StandardSocketOptions} option through {@code LinuxSocket}.
     *
     * @throws UnsupportedOperationException for an option this backend does not map
     */
    static void apply(LinuxSocket s, SocketOption<?> option, Object value) throws IOException {
        NativeSocketOptions.apply(s, option, value, EpollBackendProvider.NAME);
    }
}
