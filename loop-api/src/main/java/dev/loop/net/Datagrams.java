package dev.loop.net;

import dev.loop.Loop;
import dev.loop.net.dgram.UdpEndpoint;
import dev.loop.net.transport.Addresses;
import dev.loop.net.transport.NetEntry;
import dev.loop.net.transport.NetRegistry;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * UDP on a loop (asyncio's {@code create_datagram_endpoint}): {@link #bind} a local address to
 * receive from and send to anyone, or {@link #connect} to one peer. Binding and connecting a UDP
 * socket never wait, so these return the open endpoint at once.
 *
 * <p>Call these on the loop thread, or on any thread while the loop is not running. Addresses must
 * be resolved: a DNS lookup blocks, so do it before, or on another thread.
 */
public final class Datagrams {
    private Datagrams() {
    }

    /** Binds {@code local} with default options. */
    public static DatagramEndpoint bind(Loop loop, InetSocketAddress local) throws IOException {
        return open(loop, local, null, DatagramOptions.defaults());
    }

    /**
     * Binds {@code local} (port 0: any free port).
     *
     * @throws java.net.BindException naming the address when it cannot be bound (in use without
     *                                {@link DatagramOptions#reuseAddress()}, not local)
     * @throws UnsupportedOperationException naming the backend when it has no datagram sockets, or
     *                                       an option it cannot set
     */
    public static DatagramEndpoint bind(Loop loop, InetSocketAddress local, DatagramOptions options)
            throws IOException {
        return open(loop, local, null, options);
    }

    /** Connects to {@code remote} from any free port, with default options. */
    public static DatagramEndpoint connect(Loop loop, InetSocketAddress remote) throws IOException {
        return connect(loop, remote, DatagramOptions.defaults());
    }

    /**
     * Connects to {@code remote} from any free port of the wildcard address of its family (as the
     * kernel binds a connected UDP socket by itself).
     */
    public static DatagramEndpoint connect(Loop loop, InetSocketAddress remote, DatagramOptions options)
            throws IOException {
        NetEntry.resolved(remote, "remote");
        InetAddress any = remote.getAddress() instanceof Inet6Address ? InetAddress.getByName("::")
                : InetAddress.getByName("0.0.0.0"); // literals: no lookup
        return open(loop, new InetSocketAddress(any, 0), remote, options);
    }

    /**
     * Binds {@code local}, then connects to {@code remote} if it is not null.
     *
     * @throws java.net.BindException naming the address when it cannot be bound
     */
    public static DatagramEndpoint open(Loop loop, InetSocketAddress local, InetSocketAddress remote,
                                        DatagramOptions options) throws IOException {
        NetEntry.resolved(local, "local");
        if (remote != null) {
            NetEntry.resolved(remote, "remote");
        }
        Objects.requireNonNull(options, "options");
        NetRegistry net = NetEntry.registry(loop);
        return UdpEndpoint.open(net, local, remote, options);
    }
}
