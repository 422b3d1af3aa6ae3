package dev.loop.iouring;

import dev.loop.netty.NativeDatagram;
import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.nio.ByteBuffer;

/**
 * A non-blocking UDP socket on io_uring: the ring reports its readiness with poll operations
 * ({@link IoUringPolled}) and {@link NativeDatagram} makes its system calls, as on epoll. Not
 * thread-safe: loop thread only.
 *
 * <p>Readiness rather than completion, as ADR 0011 explains: a datagram receive through the ring
 * needs a {@code msghdr}, an address and a buffer held per socket while it waits, and the
 * per-datagram cost on loopback is the kernel's UDP path either way; the descriptor still closes
 * only once its poll is no longer in flight.
 */
final class IoUringDatagram extends IoUringPolled implements IoDatagram {
    private final NativeDatagram calls;

    IoUringDatagram(IoUringNetIo net, Socket socket, boolean ipv6, IoReady ready) {
        super(net, socket, socket.intValue(), ready);
        this.calls = new NativeDatagram(socket, ipv6, net.copy(), IoUringBackendProvider.NAME);
    }

    NativeDatagram calls() {
        return calls;
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
        return "IoUringDatagram[" + calls + "]";
    }
}
