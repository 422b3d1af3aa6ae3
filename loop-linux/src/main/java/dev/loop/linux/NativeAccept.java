package dev.loop.linux;

import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.unix.NativeInetAddress;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Accepting on a listening native socket, for every backend's server socket: {@code accept4} with
 * {@code SOCK_NONBLOCK | SOCK_CLOEXEC}, which also writes the peer's address, so no
 * {@code getpeername} call is needed per connection. Not thread-safe: one per listening socket,
 * loop thread only.
 */
public final class NativeAccept {
    /**
     * Netty's accepted-address layout: one length byte, then up to 16 address bytes, a 4-byte
     * scope id and a 4-byte port.
     */
    static final int ADDRESS_SIZE = 26;

    static {
        // The first failed accept comes at the open-file limit, where loading the classes that
        // name its error (loaded lazily, at first use) can itself need a descriptor: from a
        // directory of class files, each is a file to open. Measured on io_uring, whose sockets
        // reach none of them before: NoClassDefFoundError on every accept at the limit, and a
        // server that never accepted again. So the error path is walked once here, at listen.
        NativeErrors.translate(Call.IO, new IOException("the error path, loaded before it is needed"), null);
    }

    private final byte[] address = new byte[ADDRESS_SIZE];

    /**
     * Accepts one pending connection.
     *
     * @return its descriptor, or -1 when none is pending
     * @throws IOException as the JDK would throw it (at the open-file limit, typically); the
     *                     listening socket stays usable
     */
    public int accept(Socket listening) throws IOException {
        try {
            return listening.accept(address);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        }
    }

    /**
     * The peer of the connection {@link #accept} returned last, as an IP address. Not for a Unix
     * domain socket: there the kernel wrote a {@code sockaddr_un}, which this layout would misread.
     */
    public InetSocketAddress peer() {
        return NativeInetAddress.address(address, 1, address[0]);
    }
}
