package dev.loop.linux;

import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.unix.DatagramSocketAddress;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The system calls of a non-blocking UDP socket on Netty's native {@link Socket}, the same
 * whichever poller reports its readiness: the epoll and io_uring backends each wrap one in their
 * {@code IoDatagram}. Loop thread only.
 *
 * <p>Receiving is {@code recvfrom} ({@code Socket.recvFrom}), which tells "no datagram" (null) from
 * an empty one, until the socket receives datagrams back to back; from then on {@code recvmmsg}
 * takes up to eight at once ({@link Mmsg}, {@link DatagramBatch.Received}). Sending is {@code send}
 * on a connected socket and {@code sendto} otherwise, or, for the datagrams the endpoint holds
 * while it handles a batch of received ones ({@link #hold}), one {@code sendmmsg} for all of them.
 * Direct buffers go to the kernel as they are, heap buffers through the loop's {@link CopyBuffer},
 * which is larger than any datagram. Where {@code java.lang.foreign} cannot make the batched calls
 * (JDK 21), every datagram takes a call of its own, as Netty's public socket API offers.
 *
 * <p>Multicast membership and the multicast options are set with {@code setsockopt} through
 * Netty's public {@code Socket.setRawOpt}/{@code setIntOpt} (the transports' own {@code joinGroup}
 * is package-private): {@code MCAST_JOIN_GROUP} with a {@code struct group_req}, which takes IPv4
 * and IPv6 groups alike.
 */
public final class NativeDatagram {
    // Linux's constants (the native backends run on Linux only)
    private static final int IPPROTO_IP = 0;
    private static final int IPPROTO_IPV6 = 41;
    private static final int IP_MULTICAST_IF = 32;
    private static final int IP_MULTICAST_TTL = 33;
    private static final int IP_MULTICAST_LOOP = 34;
    private static final int IPV6_MULTICAST_IF = 17;
    private static final int IPV6_MULTICAST_HOPS = 18;
    private static final int IPV6_MULTICAST_LOOP = 19;
    private static final int MCAST_JOIN_GROUP = 42;
    private static final int MCAST_LEAVE_GROUP = 45;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    /** {@code struct group_req}: a 32-bit interface index, padding, a 128-byte sockaddr_storage. */
    private static final int GROUP_REQ_SIZE = 136;
    private static final int GROUP_REQ_ADDRESS = 8;
    /** {@code struct ip_mreqn}: group, local address, interface index. */
    private static final int IP_MREQN_SIZE = 12;

    /** Datagrams received back to back after which a socket receives in batches. */
    static final int BATCH_AFTER = 2;

    private final Socket socket;
    private final boolean ipv6;
    private final CopyBuffer copy;
    private final String backend;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    /** Received back to back since a receive last found none; counts until batching starts. */
    private int backToBack;
    private DatagramBatch.Received received;
    private DatagramBatch.Held held;

    /**
     * @param socket  a datagram socket, not yet bound
     * @param ipv6    whether it is an {@code AF_INET6} socket (multicast options are then set for
     *                both families: such a socket may send to IPv4 groups)
     * @param copy    the loop's copy buffer, for heap buffers
     * @param backend the backend's name, for the errors of options it does not map
     */
    public NativeDatagram(Socket socket, boolean ipv6, CopyBuffer copy, String backend) {
        this.socket = socket;
        this.ipv6 = ipv6;
        this.copy = copy;
        this.backend = backend;
    }

    /** Binds to {@code address}: a {@link java.net.BindException} naming it when that fails. */
    public void bind(InetSocketAddress address) throws IOException {
        try {
            socket.bind(address);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.BIND, e, address);
        }
        local = socket.localAddress();
    }

    /**
     * See {@code IoDatagram.receive}. A socket that received datagrams back to back
     * ({@link #BATCH_AFTER}) receives with {@code recvmmsg} from then on and hands the datagrams
     * out one per call; {@link #buffered()} says whether some wait here rather than in the kernel.
     * A call after the last of a batch that found the socket empty answers "none" without asking
     * the kernel again: readiness is level-triggered, so what arrived meanwhile is reported anew.
     */
    public InetSocketAddress receive(ByteBuffer dst) throws IOException {
        DatagramBatch.Received b = received;
        if (b != null) {
            if (b.hasNext()) {
                return b.take(dst);
            }
            if (b.drained) {
                b.drained = false;
                return null;
            }
            if (b.receive(socket.intValue()) > 0) {
                return b.take(dst);
            }
            // none waiting, or an error: the single receive below tells which (and names the error)
        }
        InetSocketAddress from = receiveOne(dst);
        if (from == null) {
            backToBack = 0;
        } else if (b == null && ++backToBack >= BATCH_AFTER && Mmsg.available()) {
            received = new DatagramBatch.Received();
        }
        return from;
    }

    /** Whether datagrams received in a batch wait here to be handed out. */
    public boolean buffered() {
        return received != null && received.hasNext();
    }

    /**
     * Keeps {@code src}'s datagram (copied) for {@link #flushHeld}, when batched sends are possible
     * here and it fits; false, nothing changed, otherwise.
     */
    public boolean hold(ByteBuffer src, InetSocketAddress target) {
        if (!Mmsg.available()) {
            return false;
        }
        if (held == null) {
            held = new DatagramBatch.Held(ipv6);
        }
        return held.hold(src, target);
    }

    /**
     * Sends the held datagrams in order, with {@code sendmmsg}; see {@code IoDatagram.flushHeld}.
     * When a call fails, the first datagram left is sent on its own, which names the error (that
     * datagram is then dropped and the error passed to {@code refused}) or finds no room.
     */
    public int flushHeld(java.util.function.Consumer<IOException> refused) throws IOException {
        DatagramBatch.Held h = held;
        if (h == null) {
            return 0;
        }
        int fd = socket.intValue();
        while (h.pending() > 0) {
            int n = h.send(fd);
            if (n > 0) {
                h.sent(n);
                continue;
            }
            boolean taken;
            try {
                taken = sendOne(h.firstAddress(), h.firstLength(), h.firstTarget());
            } catch (IOException e) {
                h.sent(1);
                if (e instanceof java.nio.channels.ClosedChannelException) {
                    throw e;
                }
                refused.accept(e);
                continue;
            }
            if (!taken) {
                break; // no room: write readiness says when to go on
            }
            h.sent(1);
        }
        return h.pending();
    }

    private boolean sendOne(long address, int length, InetSocketAddress target) throws IOException {
        int n;
        try {
            n = target == null ? socket.sendAddress(address, 0, length)
                    : socket.sendToAddress(address, 0, length, target.getAddress(), target.getPort());
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        }
        return n > 0 || length == 0;
    }

    private InetSocketAddress receiveOne(ByteBuffer dst) throws IOException {
        int pos = dst.position();
        int limit = dst.limit();
        try {
            if (dst.isDirect()) {
                DatagramSocketAddress from = socket.recvFrom(dst, pos, limit);
                if (from != null) {
                    dst.position(pos + from.receivedAmount());
                }
                return from;
            }
            ByteBuffer buffer = copy.buffer();
            DatagramSocketAddress from = socket.recvFromAddress(copy.address(), 0, Math.min(limit - pos, buffer.capacity()));
            if (from != null) {
                dst.put(buffer.clear().limit(from.receivedAmount()));
            }
            return from;
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        }
    }

    /** See {@code IoDatagram.send}. */
    public boolean send(ByteBuffer src, InetSocketAddress target) throws IOException {
        int pos = src.position();
        int limit = src.limit();
        int n;
        try {
            if (src.isDirect()) {
                n = target == null ? socket.send(src, pos, limit)
                        : socket.sendTo(src, pos, limit, target.getAddress(), target.getPort());
            } else {
                ByteBuffer buffer = copy.buffer().clear();
                int len = Math.min(limit - pos, buffer.capacity()); // larger than any datagram
                buffer.put(0, src, pos, len);
                n = target == null ? socket.sendAddress(copy.address(), 0, len)
                        : socket.sendToAddress(copy.address(), 0, len, target.getAddress(), target.getPort());
            }
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null); // a refused peer: PortUnreachableException, as the JDK's
        }
        if (n > 0 || pos == limit) { // an empty datagram sends 0 bytes either way: count it as sent
            src.position(limit);
            return true;
        }
        return false;
    }

    /** See {@code IoDatagram.connect}. */
    public void connect(InetSocketAddress peer) throws IOException {
        try {
            socket.connect(peer);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.CONNECT, e, peer);
        }
        remote = peer;
    }

    /** The bound address (the real port when bound to port 0), or null before {@link #bind}. */
    public InetSocketAddress localAddress() {
        return local;
    }

    /** The connected peer, or null. */
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    /** Joins ({@code join}) or leaves {@code group} on {@code nif}; the error names both. */
    public void membership(boolean join, InetAddress group, NetworkInterface nif) throws IOException {
        ByteBuffer req = ByteBuffer.allocateDirect(GROUP_REQ_SIZE).order(ByteOrder.nativeOrder());
        req.putInt(0, nif.getIndex());
        byte[] address = group.getAddress();
        if (group instanceof Inet4Address) {
            req.putShort(GROUP_REQ_ADDRESS, (short) AF_INET);   // sin_family; sin_port stays 0
            req.put(GROUP_REQ_ADDRESS + 4, address);            // sin_addr, network order
        } else {
            req.putShort(GROUP_REQ_ADDRESS, (short) AF_INET6);  // sin6_family; port, flowinfo 0
            req.put(GROUP_REQ_ADDRESS + 8, address);            // sin6_addr
        }
        // Linux takes IPv4 options on an IPv6 socket too, so the level follows the group's family
        int level = group instanceof Inet4Address ? IPPROTO_IP : IPPROTO_IPV6;
        try {
            socket.setRawOpt(level, join ? MCAST_JOIN_GROUP : MCAST_LEAVE_GROUP, req);
        } catch (IOException e) {
            IOException mapped = NativeErrors.translate(Call.IO, e, null);
            SocketException named = new SocketException(mapped.getMessage() + ": " + (join ? "joining " : "leaving ")
                    + group + " on " + nif.getName());
            named.setStackTrace(mapped.getStackTrace());
            throw named;
        }
    }

    /**
     * Sets one option: broadcast and the multicast ones here (for both families on an IPv6
     * socket), the rest as for every native socket.
     *
     * @throws UnsupportedOperationException for an option not mapped, naming it and the backend
     */
    public void apply(SocketOption<?> option, Object value) throws IOException {
        if (option == StandardSocketOptions.SO_BROADCAST) {
            socket.setBroadcast((Boolean) value);
        } else if (option == StandardSocketOptions.IP_MULTICAST_IF) {
            NetworkInterface nif = (NetworkInterface) value;
            ByteBuffer mreqn = ByteBuffer.allocateDirect(IP_MREQN_SIZE).order(ByteOrder.nativeOrder());
            mreqn.putInt(8, nif.getIndex());
            socket.setRawOpt(IPPROTO_IP, IP_MULTICAST_IF, mreqn);
            if (ipv6) {
                socket.setIntOpt(IPPROTO_IPV6, IPV6_MULTICAST_IF, nif.getIndex());
            }
        } else if (option == StandardSocketOptions.IP_MULTICAST_TTL) {
            socket.setIntOpt(IPPROTO_IP, IP_MULTICAST_TTL, (Integer) value);
            if (ipv6) {
                socket.setIntOpt(IPPROTO_IPV6, IPV6_MULTICAST_HOPS, (Integer) value);
            }
        } else if (option == StandardSocketOptions.IP_MULTICAST_LOOP) {
            int on = (Boolean) value ? 1 : 0;
            socket.setIntOpt(IPPROTO_IP, IP_MULTICAST_LOOP, on);
            if (ipv6) {
                socket.setIntOpt(IPPROTO_IPV6, IPV6_MULTICAST_LOOP, on);
            }
        } else {
            NativeSocketOptions.apply(socket, option, value, backend);
        }
    }

    /** Sets every option of {@code options}; see {@link #apply}. */
    public void applyAll(java.util.Map<SocketOption<?>, Object> options) throws IOException {
        for (java.util.Map.Entry<SocketOption<?>, Object> e : options.entrySet()) {
            apply(e.getKey(), e.getValue());
        }
    }

    @Override
    public String toString() {
        return local + (remote == null ? "" : " -> " + remote);
    }
}
