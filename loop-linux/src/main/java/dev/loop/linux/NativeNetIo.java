package dev.loop.linux;

import dev.loop.spi.DatagramIo;
import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.IoWatch;
import dev.loop.spi.NetIo;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.WatchIo;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.nio.channels.SelectableChannel;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The socket calls of {@link NetIo} on Netty's native {@link Socket}, the same whichever poller
 * drives the descriptors: opening, binding and listening, connecting, opening and binding a UDP
 * socket, and the bookkeeping of watched descriptors, each closing what it opened when a later
 * step fails. A backend supplies only what differs: its kind of socket, the handle it wraps a
 * descriptor in, and its entry onto the loop thread. Not thread-safe: loop thread only, or any
 * thread while the loop is not running.
 *
 * @param <S> the backend's kind of native socket
 */
public abstract class NativeNetIo<S extends Socket> implements NetIo {
    /** listen(2)'s backlog when the caller leaves it to the backend (the kernel caps it at somaxconn). */
    public static final int DEFAULT_BACKLOG = 1024;

    private final String backend;
    private final DatagramIo datagrams = this::openDatagram;
    /** The descriptors the program's watches hold (boxed: a watch is set up rarely, never per event). */
    private final Set<Integer> watchedFds = new HashSet<>();
    private final WatchIo watches = new WatchIo() {
        @Override
        public IoWatch watch(int fd, IoReady ready) throws IOException {
            enter();
            if (fd < 0) {
                throw new IllegalArgumentException("cannot watch file descriptor " + fd + ": not a descriptor");
            }
            // One registration per descriptor: Netty's epoll would let a second replace the first
            // silently, and two polls on a ring would race for its readiness. Refuse it, naming it.
            if (!watchedFds.add(fd)) {
                throw new IOException("cannot watch file descriptor " + fd + ": it is already watched by this loop");
            }
            try {
                return newWatch(fd, ready);
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

    /** @param backend the backend's name, for errors */
    protected NativeNetIo(String backend) {
        this.backend = backend;
    }

    /** Claims the loop for the calling thread; every socket call enters here first. */
    public abstract void enter();

    /** A new non-blocking TCP socket of the family that can reach {@code address}. */
    protected abstract S newStream(InetSocketAddress address) throws IOException;

    /** Wraps a bound, listening TCP socket. */
    protected abstract IoServerSocket listening(S socket, IoReady ready) throws IOException;

    /**
     * Wraps a socket whose connect to {@code remote} has started, and finished already when
     * {@code connectedAtOnce} (else the backend reports its outcome as {@link IoReady#WRITE}).
     */
    protected abstract IoSocket connecting(S socket, InetSocketAddress remote, IoReady ready,
                                           boolean connectedAtOnce) throws IOException;

    /** A new non-blocking UDP socket that can be bound to {@code local}. */
    protected abstract S newDatagram(InetSocketAddress local) throws IOException;

    /**
     * Wraps a new UDP socket from {@link #newDatagram}, still unbound; this class applies the
     * options and binds it to {@code local}.
     */
    protected abstract NativeDatagramSocket datagram(S socket, InetSocketAddress local, IoReady ready) throws IOException;

    /** Starts watching the program's descriptor {@code fd}, which this class checked is not watched yet. */
    protected abstract IoWatch newWatch(int fd, IoReady ready) throws IOException;

    /** The backend's name. */
    public final String backend() {
        return backend;
    }

    /** A watch of {@code fd} ended: the descriptor may be watched again. */
    public final void unwatched(int fd) {
        watchedFds.remove(fd);
    }

    /** Sets one {@link java.net.StandardSocketOptions} option on one of this backend's sockets. */
    public final void apply(Socket s, SocketOption<?> option, Object value) throws IOException {
        NativeSocketOptions.apply(s, option, value, backend);
    }

    /** Linux's SO_REUSEPORT hashes incoming connections over every socket listening on the port. */
    @Override
    public final boolean reusePortBalances() {
        return true;
    }

    @Override
    public final IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                       IoReady ready) throws IOException {
        enter();
        S s = NativeErrors.opened(() -> newStream(local));
        try {
            NativeListen.bindAndListen(s, local, local, backlog, DEFAULT_BACKLOG, options, backend);
            return listening(s, ready);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public final IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        enter();
        S s = NativeErrors.opened(() -> newStream(remote));
        try {
            NativeSocketOptions.applyAll(s, options, backend);
            boolean atOnce;
            try {
                atOnce = s.connect(remote); // false: EINPROGRESS, the poller reports the outcome
            } catch (IOException e) {
                throw NativeErrors.translate(Call.CONNECT, e, remote);
            }
            return connecting(s, remote, ready, atOnce);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public final DatagramIo datagrams() {
        return datagrams;
    }

    @Override
    public final boolean kernelSockets() {
        return true;
    }

    private IoDatagram openDatagram(InetSocketAddress local, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        enter();
        S s = NativeErrors.opened(() -> newDatagram(local));
        try {
            NativeDatagramSocket d = datagram(s, local, ready);
            d.calls().applyAll(options);
            d.calls().bind(local);
            return d;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public final WatchIo watches() {
        return watches;
    }
}
