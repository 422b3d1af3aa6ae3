package dev.loop.iouring;

import dev.loop.linux.NativeDatagram;
import dev.loop.linux.NativeDatagramSocket;
import dev.loop.spi.IoReady;
import io.netty.channel.unix.Socket;

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
final class IoUringDatagram extends IoUringPolled implements NativeDatagramSocket {
    private final NativeDatagram calls;

    IoUringDatagram(IoUringNetIo net, Socket socket, boolean ipv6, IoReady ready) {
        super(net, socket, socket.intValue(), ready);
        this.calls = new NativeDatagram(socket, ipv6, net.copy(), IoUringBackendProvider.NAME);
    }

    @Override
    public NativeDatagram calls() {
        return calls;
    }

    @Override
    public void reportBuffered() {
        IoReady r = ready;
        if (r != null && !isClosing()) {
            r.onReady(IoReady.READ);
        }
    }

    @Override
    void interestAsked(boolean read) {
        if (read && calls.buffered()) {
            reportBuffered(); // no poll can: they left the kernel already
        }
    }

    @Override
    public String toString() {
        return "IoUringDatagram[" + calls + "]";
    }
}
