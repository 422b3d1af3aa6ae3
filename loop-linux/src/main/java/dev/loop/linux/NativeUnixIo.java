package dev.loop.linux;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.net.SocketOption;
import java.net.UnixDomainSocketAddress;
import java.util.Map;

/**
 * Unix domain stream sockets on Netty's native {@link Socket}: opened, bound and connected the
 * same way whichever poller then drives them, so a backend only wraps the descriptor in its own
 * socket types. Netty's public {@link DomainSocketAddress} also reaches Linux's abstract
 * namespace (a name whose first byte is NUL). Not thread-safe: loop thread only, or any thread
 * while the loop is not running.
 *
 * <p>Netty's native bind unlinks whatever is at the path first. {@code loop-api} checks the path
 * before it calls {@link #listen} (it refuses a path that exists unless it is a stale socket it was
 * asked to replace), so that only matters for a file created between the check and the bind.
 *
 * @param <S> the backend's kind of native socket
 */
public abstract class NativeUnixIo<S extends Socket> implements UnixIo {
    /** How a peer that never bound a name is named, as the JDK names it. */
    public static final UnixDomainSocketAddress UNNAMED = UnixDomainSocketAddress.of("");

    private final String backend;
    private final int defaultBacklog;

    /**
     * @param backend        the backend's name, for errors
     * @param defaultBacklog the accept queue length when the caller asks for 0
     */
    protected NativeUnixIo(String backend, int defaultBacklog) {
        this.backend = backend;
        this.defaultBacklog = defaultBacklog;
    }

    /** Claims the loop for the calling thread, as the backend's other socket calls do. */
    protected abstract void enter();

    /** A new non-blocking {@code AF_UNIX} stream socket. */
    protected abstract S newSocket() throws IOException;

    /**
     * Wraps a bound, listening socket.
     *
     * @param path its name, or null for an abstract name (the layer above names those itself)
     */
    protected abstract IoServerSocket listening(S socket, UnixDomainSocketAddress path, IoReady ready) throws IOException;

    /**
     * Wraps a socket whose connect to {@code path} (null for an abstract name) has started, and
     * finished already when {@code connectedAtOnce}.
     */
    protected abstract IoSocket connecting(S socket, UnixDomainSocketAddress path, IoReady ready,
                                           boolean connectedAtOnce) throws IOException;

    @Override
    public final IoServerSocket listen(UnixDomainSocketAddress path, int backlog, Map<SocketOption<?>, Object> options,
                                       IoReady ready) throws IOException {
        return listen(new DomainSocketAddress(path.getPath().toString()), path, backlog, options, ready);
    }

    @Override
    public final IoServerSocket listenAbstract(String name, int backlog, Map<SocketOption<?>, Object> options,
                                               IoReady ready) throws IOException {
        return listen(new DomainSocketAddress("\0" + name), null, backlog, options, ready);
    }

    private IoServerSocket listen(DomainSocketAddress address, UnixDomainSocketAddress path, int backlog,
                                  Map<SocketOption<?>, Object> options, IoReady ready) throws IOException {
        enter();
        S s = NativeErrors.opened(this::newSocket);
        try {
            Object named = path != null ? path : "@" + address.path().substring(1);
            NativeListen.bindAndListen(s, address, named, backlog, defaultBacklog, options, backend);
            return listening(s, path, ready);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public final IoSocket connect(UnixDomainSocketAddress path, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        return connect(new DomainSocketAddress(path.getPath().toString()), path, path, options, ready);
    }

    @Override
    public final IoSocket connectAbstract(String name, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        return connect(new DomainSocketAddress("\0" + name), null, "@" + name, options, ready);
    }

    private IoSocket connect(DomainSocketAddress address, UnixDomainSocketAddress path, Object named,
                             Map<SocketOption<?>, Object> options, IoReady ready) throws IOException {
        enter();
        S s = NativeErrors.opened(this::newSocket);
        boolean atOnce;
        try {
            NativeSocketOptions.applyAll(s, options, backend);
            atOnce = s.connect(address);
        } catch (ClosedChannelException e) {
            s.close();
            throw e;
        } catch (IOException e) {
            // refused, no such file, not allowed: all mean the connect failed, and say where to
            s.close();
            throw NativeErrors.translate(Call.CONNECT, e, named);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        try {
            return connecting(s, path, ready, atOnce);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }
}
