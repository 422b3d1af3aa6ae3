package dev.loop.iouring;

import dev.loop.linux.NativeNetIo;
import dev.loop.linux.NativeUnixIo;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import io.netty.channel.unix.Socket;
import java.net.UnixDomainSocketAddress;

/**
 * Unix domain stream sockets on io_uring, opened, bound and connected as {@link NativeUnixIo}
 * does for every native backend, then driven exactly as TCP sockets are here: a receive and a
 * send are the same operations on any stream socket, so the completion path is shared whole.
 * Not thread-safe: loop thread only, or any thread while the loop is not running.
 */
final class IoUringUnixIo extends NativeUnixIo<Socket> {
    private final IoUringNetIo net;

    IoUringUnixIo(IoUringNetIo net) {
        super(IoUringBackendProvider.NAME, NativeNetIo.DEFAULT_BACKLOG);
        this.net = net;
    }

    @Override
    protected void enter() {
        net.enter();
    }

    @Override
    protected Socket newSocket() {
        return Socket.newSocketDomain();
    }

    @Override
    protected IoServerSocket listening(Socket socket, UnixDomainSocketAddress path, IoReady ready) {
        return IoUringServerSocket.unix(net, socket, ready, path);
    }

    @Override
    protected IoSocket connecting(Socket socket, UnixDomainSocketAddress path, IoReady ready,
                                  boolean connectedAtOnce) {
        IoUringSocket s = IoUringSocket.unix(net, socket, ready, connectedAtOnce, UNNAMED, path);
        if (!connectedAtOnce) {
            s.awaitConnect();
        }
        return s;
    }
}
