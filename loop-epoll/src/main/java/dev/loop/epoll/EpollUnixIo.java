package dev.loop.epoll;

import dev.loop.netty.NativeErrors;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.UnixIo;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketOption;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * Unix domain stream sockets on epoll: Netty's {@code LinuxSocket.newSocketDomain()}, bound and
 * connected through its public {@link DomainSocketAddress}, which also reaches Linux's abstract
 * namespace (a name whose first byte is NUL). Not thread-safe: loop thread only, or any thread
 * while the loop is not running.
 *
 * <p>Peer credentials come from {@code getsockopt(SO_PEERCRED)} through {@code Socket.getRawOpt},
 * the public way to it ({@code LinuxSocket.getPeerCredentials} is package-private).
 *
 * <p>Netty's native bind unlinks whatever is at the path first. {@code loop-api} checks the path
 * before it calls {@link #listen} (it refuses a path that exists unless it is a stale socket it was
 * asked to replace), so that only matters for a file created between the check and the bind.
 */
final class EpollUnixIo implements UnixIo {
    /** How a peer that never bound a name is named, as the JDK names it. */
    static final UnixDomainSocketAddress UNNAMED = UnixDomainSocketAddress.of("");

    private static final int SOL_SOCKET = 1;
    private static final int SO_PEERCRED = 17;
    /** {@code struct ucred}: pid, uid, gid, each 32 bits. */
    private static final int UCRED_SIZE = 12;

    private final EpollNetIo net;

    EpollUnixIo(EpollNetIo net) {
        this.net = net;
    }

    @Override
    public IoServerSocket listen(UnixDomainSocketAddress path, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        return listen(new DomainSocketAddress(path.getPath().toString()), path, backlog, options, ready);
    }

    @Override
    public IoServerSocket listenAbstract(String name, int backlog, Map<SocketOption<?>, Object> options,
                                         IoReady ready) throws IOException {
        return listen(new DomainSocketAddress("\0" + name), null, backlog, options, ready);
    }

    private IoServerSocket listen(DomainSocketAddress address, UnixDomainSocketAddress path, int backlog,
                                  Map<SocketOption<?>, Object> options, IoReady ready) throws IOException {
        net.enter();
        LinuxSocket s = LinuxSocket.newSocketDomain();
        try {
            EpollNetIo.applyAll(s, options);
            try {
                s.bind(address);
            } catch (Errors.NativeIoException e) {
                throw NativeErrors.bindFailed(e, path != null ? path : "@" + address.path().substring(1));
            }
            s.listen(backlog > 0 ? backlog : EpollNetIo.DEFAULT_BACKLOG);
            return new EpollServerSocket(net, s, ready, path);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public IoSocket connect(UnixDomainSocketAddress path, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        return connect(new DomainSocketAddress(path.getPath().toString()), path, path, options, ready);
    }

    @Override
    public IoSocket connectAbstract(String name, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        return connect(new DomainSocketAddress("\0" + name), null, "@" + name, options, ready);
    }

    private IoSocket connect(DomainSocketAddress address, UnixDomainSocketAddress path, Object named,
                             Map<SocketOption<?>, Object> options, IoReady ready) throws IOException {
        net.enter();
        LinuxSocket s = LinuxSocket.newSocketDomain();
        try {
            EpollNetIo.applyAll(s, options);
            EpollSocket socket = EpollSocket.unix(net, s, ready, false, UNNAMED, path);
            if (s.connect(address)) {
                socket.connectedAtOnce();
            }
            return socket;
        } catch (ConnectException | FileNotFoundException | Errors.NativeIoException e) {
            // refused, no such file (Netty reports ENOENT as a FileNotFoundException without a
            // message), not allowed: all mean the connect failed
            s.close();
            String why = e instanceof FileNotFoundException ? "No such file or directory" : e.getMessage();
            ConnectException withPath = new ConnectException(why + ": " + named);
            withPath.initCause(e);
            throw withPath;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public IoPeerCredentials peerCredentials(IoSocket socket) throws IOException {
        if (!(socket instanceof EpollSocket s)) {
            throw new IllegalArgumentException("not an epoll socket: " + socket);
        }
        ByteBuffer ucred = ByteBuffer.allocateDirect(UCRED_SIZE).order(ByteOrder.nativeOrder());
        s.socket.getRawOpt(SOL_SOCKET, SO_PEERCRED, ucred);
        return new IoPeerCredentials(ucred.getInt(0), Integer.toUnsignedLong(ucred.getInt(4)),
                Integer.toUnsignedLong(ucred.getInt(8)));
    }
}
