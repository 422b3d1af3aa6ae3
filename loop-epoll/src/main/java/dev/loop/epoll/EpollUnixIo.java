package dev.loop.epoll;

import dev.loop.linux.NativeNetIo;
import dev.loop.linux.NativeUnixIo;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import io.netty.channel.epoll.LinuxSocket;
import java.net.UnixDomainSocketAddress;

/**
 * Unix domain stream sockets on epoll: {@code LinuxSocket.newSocketDomain()}, opened, bound and
 * connected as {@link NativeUnixIo} does for every native backend, then driven as epoll sockets.
 * Not thread-safe: loop thread only, or any thread while the loop is not running.
 */
final class EpollUnixIo extends NativeUnixIo<LinuxSocket> {
    private final EpollNetIo net;

    EpollUnixIo(EpollNetIo net) {
        super(EpollBackendProvider.NAME, NativeNetIo.DEFAULT_BACKLOG);
        this.net = net;
    }

    @Override
    protected void enter() {
        net.enter();
    }

    @Override
    protected LinuxSocket newSocket() {
        return LinuxSocket.newSocketDomain();
    }

    @Override
    protected IoServerSocket listening(LinuxSocket socket, UnixDomainSocketAddress path, IoReady ready) {
        return new EpollServerSocket(net, socket, ready, path);
    }

    @Override
    protected IoSocket connecting(LinuxSocket socket, UnixDomainSocketAddress path, IoReady ready,
                                  boolean connectedAtOnce) {
        EpollSocket s = EpollSocket.unix(net, socket, ready, false, UNNAMED, path);
        if (connectedAtOnce) {
            s.connectedAtOnce();
        }
        return s;
    }
}
