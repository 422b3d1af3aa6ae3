package dev.loop.epoll;

import dev.loop.linux.NativeDatagram;
import dev.loop.linux.NativeDatagramSocket;
import dev.loop.spi.IoReady;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;

/**
 * A non-blocking UDP socket on epoll ({@code LinuxSocket.newSocketDgram}): epoll reports its
 * readiness, {@link NativeDatagram} makes its system calls. Not thread-safe: loop thread only.
 */
final class EpollDatagram extends EpollChannel implements NativeDatagramSocket {
    private static final EpollIoOps READ_WRITE = EpollIoOps.EPOLLIN.with(EpollIoOps.EPOLLOUT);

    private final NativeDatagram calls;

    EpollDatagram(EpollNetIo net, LinuxSocket socket, boolean ipv6, IoReady ready) {
        super(net, socket, ready);
        this.calls = new NativeDatagram(socket, ipv6, net.copy(), EpollBackendProvider.NAME);
    }

    @Override
    public NativeDatagram calls() {
        return calls;
    }

    @Override
    public void reportBuffered() {
        IoReady r = ready;
        if (r != null && isOpen()) {
            r.onReady(IoReady.READ);
        }
    }

    @Override
    void interestAsked(boolean read) {
        if (read && calls.buffered()) {
            reportBuffered(); // epoll cannot: they left the kernel already
        }
    }

    @Override
    EpollIoOps opsFor(boolean read, boolean write) {
        if (read) {
            return write ? READ_WRITE : EpollIoOps.EPOLLIN;
        }
        return write ? EpollIoOps.EPOLLOUT : PAUSED;
    }

    @Override
    public String toString() {
        return "EpollDatagram[" + calls + "]";
    }
}
