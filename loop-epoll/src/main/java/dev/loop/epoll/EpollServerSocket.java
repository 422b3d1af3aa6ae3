package dev.loop.epoll;

import dev.loop.linux.NativeAccept;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import java.io.IOException;
import java.net.SocketAddress;

/** A listening stream socket on epoll, TCP or Unix domain. Not thread-safe: loop thread only. */
final class EpollServerSocket extends EpollChannel implements IoServerSocket {
    private final SocketAddress local;
    private final boolean unix;
    private final NativeAccept acceptor = new NativeAccept();

    /** A listening TCP socket. */
    EpollServerSocket(EpollNetIo net, LinuxSocket socket, IoReady ready) {
        super(net, socket, ready);
        this.local = socket.localAddress();
        this.unix = false;
    }

    /**
     * A listening Unix domain socket named {@code local} (null for an abstract name, which the
     * layer above names itself). Its connections' peers are unnamed, as clients' usually are.
     */
    EpollServerSocket(EpollNetIo net, LinuxSocket socket, IoReady ready, SocketAddress local) {
        super(net, socket, ready);
        this.local = local;
        this.unix = true;
    }

    @Override
    EpollIoOps opsFor(boolean read, boolean write) {
        return read ? EpollIoOps.EPOLLIN : PAUSED;
    }

    @Override
    public IoSocket accept() throws IOException {
        int fd = acceptor.accept(socket);
        if (fd < 0) {
            return null;
        }
        LinuxSocket s = LinuxSocket.newSocket(fd);
        if (unix) {
            // a Unix peer is unnamed, and the kernel wrote a sockaddr_un that peer() would misread
            return EpollSocket.unix(net, s, null, true, local, EpollUnixIo.UNNAMED);
        }
        try {
            return new EpollSocket(net, s, null, true, acceptor.peer());
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public String toString() {
        return "EpollServerSocket[" + local + "]";
    }
}
