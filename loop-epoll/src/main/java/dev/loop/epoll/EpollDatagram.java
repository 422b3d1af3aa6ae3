package dev.loop.epoll;

import dev.loop.netty.NativeDatagram;
import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.nio.ByteBuffer;

/**
 * A non-blocking UDP socket on epoll ({@code LinuxSocket.newSocketDgram}): epoll reports its
 * readiness, {@link NativeDatagram} makes its system calls. Not thread-safe: loop thread only.
 */
final class EpollDatagram extends EpollChannel implements IoDatagram {
    private static final EpollIoOps READ_WRITE = EpollIoOps.EPOLLIN.with(EpollIoOps.EPOLLOUT);

    final NativeDatagram calls;

    EpollDatagram(EpollNetIo net, LinuxSocket socket, boolean ipv6, IoReady ready) {
        super(net, socket, ready);
        this.calls = new NativeDatagram(socket, ipv6, net.copy(), EpollBackendProvider.NAME);
    }

    @Override
    EpollIoOps opsFor(boolean read, boolean write) {
        if (read) {
            return write ? READ_WRITE : EpollIoOps.EPOLLIN;
        }
        return write ? EpollIoOps.EPOLLOUT : PAUSED;
    }

    @Override
    public InetSocketAddress receive(ByteBuffer dst) throws IOException {
        return calls.receive(dst);
    }

    @Override
    public boolean send(ByteBuffer src, InetSocketAddress target) throws IOException {
        return calls.send(src, target);
    }

    @Override
    public void connect(InetSocketAddress peer) throws IOException {
        calls.connect(peer);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return calls.remoteAddress();
    }

    @Override
    public void joinGroup(InetAddress group, NetworkInterface nif) throws IOException {
        calls.membership(true, group, nif);
    }

    @Override
    public void leaveGroup(InetAddress group, NetworkInterface nif) throws IOException {
        calls.membership(false, group, nif);
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        calls.apply(option, value);
    }

    @Override
    public InetSocketAddress localAddress() {
        return calls.localAddress();
    }

    @Override
    public String toString() {
        return "EpollDatagram[" + calls + "]";
    }
}
