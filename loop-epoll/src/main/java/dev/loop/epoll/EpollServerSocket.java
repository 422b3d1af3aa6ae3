package dev.loop.epoll;

import dev.loop.linux.NativeErrors;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.unix.NativeInetAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** A listening stream socket on epoll, TCP or Unix domain. Not thread-safe: loop thread only. */
final class EpollServerSocket extends EpollChannel implements IoServerSocket {
    /**
     * {@code accept(byte[])} writes the peer's address here: one length byte, then up to 16 address
     * bytes, a 4-byte scope id and a 4-byte port (Netty's layout), so no {@code getpeername} call is
     * needed per connection.
     */
    private static final int ACCEPTED_ADDRESS_SIZE = 26;

    private final SocketAddress local;
    private final boolean unix;
    private final byte[] acceptedAddress = new byte[ACCEPTED_ADDRESS_SIZE];

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
        int fd;
        try {
            fd = socket.accept(acceptedAddress); // accept4(SOCK_NONBLOCK | SOCK_CLOEXEC)
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null); // at the open-file limit, typically
        }
        if (fd < 0) {
            return null;
        }
        LinuxSocket s = LinuxSocket.newSocket(fd);
        if (unix) {
            // the kernel filled acceptedAddress with a sockaddr_un that Netty decodes as IP: ignore it
            return EpollSocket.unix(net, s, null, true, local, EpollUnixIo.UNNAMED);
        }
        try {
            InetSocketAddress remote = NativeInetAddress.address(acceptedAddress, 1, acceptedAddress[0]);
            return new EpollSocket(net, s, null, true, remote);
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
