package dev.loop.sim;

import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetConnectedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated UDP socket: bound to an address and port of its host, optionally connected, with a
 * receive buffer of {@code SO_RCVBUF} bytes. A datagram leaves at once (there is no send buffer to
 * fill: writable whenever open) and travels as an event of the network ({@link SimDatagrams});
 * what arrives while the buffer is full is dropped and counted, as the kernel does. An ICMP
 * "port unreachable" answering a datagram this socket sent is kept, when connected, for the next
 * receive or send, which throws it as every backend does ({@link SocketErrors}); the socket stays
 * usable. Guarded by the network's lock.
 */
final class SimDatagramSocket extends SimHandle implements IoDatagram {
    /** Linux's default receive buffer ({@code net.core.rmem_default}). */
    static final int DEFAULT_RCVBUF = 212_992;
    /**
     * What a queued datagram costs its receive buffer beyond its payload: the kernel charges the
     * whole buffer it sits in, so a flood of empty datagrams fills the buffer too.
     */
    static final int OVERHEAD = 256;
    /** The largest payload over IPv4 (65,535 less the IP and UDP headers) and over IPv6. */
    static final int MAX_IPV4 = 65_507;
    static final int MAX_IPV6 = 65_527;

    /** One datagram waiting in the receive buffer; the bytes are shared by duplicates, never written. */
    record Queued(byte[] data, InetSocketAddress sender) {
    }

    final InetSocketAddress local;
    final SimDatagrams datagrams;
    InetSocketAddress remote;
    final boolean reuseAddress;
    final boolean reusePort;
    boolean broadcast;
    boolean multicastLoop = true;
    int rcvbuf = DEFAULT_RCVBUF;
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    private int queuedBytes;
    /** Datagrams dropped because the receive buffer was full. */
    long overflowed;
    /** An ICMP "port unreachable" arrived for a datagram sent while connected, not yet reported. */
    boolean unreachable;
    /** Groups joined (the interface is the program's business: every simulated host has one network). */
    final List<InetAddress> groups = new ArrayList<>(0);
    /** This socket's address as a receiver sees it, by route: to its own host's loopback, to elsewhere. */
    private InetSocketAddress fromLoopback;
    private InetSocketAddress fromHost;

    SimDatagramSocket(SimNetwork net, SimHost host, SimDriver driver, IoReady ready, SimDatagrams datagrams,
                      InetSocketAddress local, boolean reuseAddress, boolean reusePort) {
        super(net, host, driver, ready);
        this.datagrams = datagrams;
        this.local = local;
        this.reuseAddress = reuseAddress;
        this.reusePort = reusePort;
    }

    @Override
    int readyOps() {
        int ops = IoReady.WRITE;
        if (!queue.isEmpty() || unreachable) {
            ops |= IoReady.READ;
        }
        return ops;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        net.lock.lock();
        try {
            return remote;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public InetSocketAddress receive(ByteBuffer dst) throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            throwUnreachable();
            Queued d = queue.poll();
            if (d == null) {
                return null;
            }
            queuedBytes -= d.data.length + OVERHEAD;
            dst.put(d.data, 0, Math.min(d.data.length, dst.remaining())); // the rest is cut, as the kernel cuts it
            return d.sender;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public boolean send(ByteBuffer src, InetSocketAddress target) throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            throwUnreachable();
            InetSocketAddress to = target != null ? target : remote;
            if (to == null) {
                throw new NotYetConnectedException();
            }
            int max = local.getAddress() instanceof Inet6Address ? MAX_IPV6 : MAX_IPV4;
            if (src.remaining() > max) {
                throw SocketErrors.of(Call.IO, 90, null, null); // EMSGSIZE: "Message too long"
            }
            if (to.isUnresolved() || to.getPort() == 0) {
                throw SocketErrors.of(Call.IO, 22, null, null); // EINVAL, as sendto answers
            }
            InetAddress a = to.getAddress();
            boolean group = a.isMulticastAddress() || SimDatagrams.isBroadcast(a);
            if (group && !a.isMulticastAddress() && !broadcast) {
                throw SocketErrors.of(Call.IO, SocketErrors.EACCES, null, null); // what Linux answers without SO_BROADCAST
            }
            if (!group && local.getAddress().isLoopbackAddress() && net.hostAt(a, host) != host) {
                throw SocketErrors.of(Call.IO, 22, null, null); // EINVAL: Linux sends nothing from loopback to elsewhere
            }
            byte[] data = new byte[src.remaining()]; // the copy in flight: the caller may reuse its buffer at once
            src.get(data);
            datagrams.send(this, data, to);
            return true;
        } finally {
            net.lock.unlock();
        }
    }

    /** Throws the pending "port unreachable" once; the socket stays usable. */
    private void throwUnreachable() throws SocketException {
        if (unreachable) {
            unreachable = false;
            throw SocketErrors.of(Call.IO, SocketErrors.ECONNREFUSED, null, null);
        }
    }

    /** A datagram arrives from {@code sender}: kept if the buffer has room, else dropped and counted. Under the lock. */
    boolean arrive(byte[] data, InetSocketAddress sender) {
        if (queuedBytes >= rcvbuf) { // as Linux: a datagram is taken while the buffer is not yet full
            overflowed++;
            return false;
        }
        queue.add(new Queued(data, sender));
        queuedBytes += data.length + OVERHEAD;
        changed();
        return true;
    }

    /** The answer to a datagram this socket sent: a connected socket reports it. Under the lock. */
    void portUnreachable() {
        if (!closed && remote != null) {
            unreachable = true;
            changed();
        }
    }

    /** This socket's address as the host {@code to} sees it (the sender a receiver is told). Under the lock. */
    InetSocketAddress sourceFor(SimHost to, InetAddress target) {
        if (!local.getAddress().isAnyLocalAddress()) {
            return local;
        }
        if (to == host && target.isLoopbackAddress()) {
            if (fromLoopback == null || !fromLoopback.getAddress().equals(target)) {
                fromLoopback = new InetSocketAddress(target, local.getPort());
            }
            return fromLoopback;
        }
        if (fromHost == null) {
            fromHost = new InetSocketAddress(host.address(), local.getPort());
        }
        return fromHost;
    }

    @Override
    public void connect(InetSocketAddress peer) throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            if (peer.isUnresolved()) {
                throw SocketErrors.of(Call.CONNECT, SocketErrors.EHOSTUNREACH, null, peer);
            }
            remote = peer;
            net.trace(host.name() + " udp " + local + " connected to " + peer);
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public void joinGroup(InetAddress group, NetworkInterface nif) throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            if (!group.isMulticastAddress()) {
                throw new IllegalArgumentException("not a multicast address: " + group);
            }
            if (SimDatagrams.indexOf(groups, group) >= 0) {
                throw SocketErrors.of(Call.IO, SocketErrors.EADDRINUSE, null, null); // the kernel's answer to a second join
            }
            groups.add(group);
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public void leaveGroup(InetAddress group, NetworkInterface nif) throws IOException {
        net.lock.lock();
        try {
            int i = SimDatagrams.indexOf(groups, group);
            if (i < 0) {
                throw SocketErrors.of(Call.IO, SocketErrors.EADDRNOTAVAIL, null, null);
            }
            groups.remove(i);
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            apply(option, value);
        } finally {
            net.lock.unlock();
        }
    }

    /** Sets one of the options {@link dev.loop.spi.DatagramIo#open} takes; refuses the others, naming them. */
    void apply(SocketOption<?> option, Object value) {
        if (option == StandardSocketOptions.SO_RCVBUF) {
            rcvbuf = Math.max(1024, (Integer) value);
        } else if (option == StandardSocketOptions.SO_BROADCAST) {
            broadcast = (Boolean) value;
        } else if (option == StandardSocketOptions.IP_MULTICAST_LOOP) {
            multicastLoop = (Boolean) value;
        } else if (option != StandardSocketOptions.SO_SNDBUF && option != StandardSocketOptions.SO_REUSEADDR
                && option != StandardSocketOptions.SO_REUSEPORT && option != StandardSocketOptions.IP_MULTICAST_IF
                && option != StandardSocketOptions.IP_MULTICAST_TTL) {
            throw new UnsupportedOperationException("backend sim does not support " + option.name() + " on datagrams");
        }
        // SO_SNDBUF: a datagram leaves at once; the reuse options count at bind; one network has no interfaces or hops
    }

    @Override
    public void close() {
        net.lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            host.open.remove(this);
            datagrams.unbind(this);
            queue.clear(); // what was not received is gone with the socket
            queuedBytes = 0;
            changed();
            net.trace(host.name() + " udp " + local + " closed"
                    + (overflowed == 0 ? "" : " (" + overflowed + " datagrams dropped: receive buffer full)"));
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "SimDatagramSocket[" + local + (remote == null ? "" : " -> " + remote) + "]";
    }
}
