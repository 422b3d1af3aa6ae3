package dev.loop.net.dgram;

import dev.loop.log.LogContext;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramHandler;
import dev.loop.net.DatagramOptions;
import dev.loop.net.transport.CoalescedReadiness;
import dev.loop.net.transport.NetEntry;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.DatagramIo;
import dev.loop.spi.IoDatagram;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The engine's {@link DatagramEndpoint} on a backend's {@link IoDatagram}; not thread-safe (loop
 * thread only).
 *
 * <p>This class is the state machine (open, closing, closed), readiness dispatch, sending and the
 * multicast memberships; receiving is a {@link DatagramReceiver}'s and the outgoing queue a
 * {@link DatagramQueue}. As a connection is, it is its own readiness receiver and callback
 * ({@link CoalescedReadiness}): the poll records the bits, {@link #ready} flushes the queue and
 * receives in the callback phase.
 *
 * <p>A send while nothing is queued goes to the kernel at once and, taken, returns one completed
 * future shared by every such send: sending a datagram the kernel takes allocates nothing. While
 * the endpoint hands out received datagrams, what the handler sends is held by the socket instead
 * ({@link IoDatagram#hold}) and leaves in one system call when the batch is handled: a server that
 * answers each datagram makes one call per batch each way, not one per datagram. A held datagram
 * counts as taken (its future is done); one the kernel then refuses is reported as a receive error
 * is, and dropped.
 */
public final class UdpEndpoint extends CoalescedReadiness implements DatagramEndpoint, NetRegistry.Owned, LogContext.Subject {
    private static final int OPEN = 0;
    private static final int CLOSING = 1; // graceful: sending the queue, then closing
    private static final int CLOSED = 2;
    private static final String[] STATE_NAMES = {"open", "closing", "closed"};

    private record Membership(InetAddress group, NetworkInterface nif) {
    }

    final NetRegistry net;
    final IoDatagram socket;
    private final DatagramOptions options;
    private final DatagramReceiver receiver;
    private final DatagramQueue out;
    private final DatagramQueue.Namer namer = this::nameSendError;
    private final Promise<Void> closed;
    private InetSocketAddress remote;
    private int state;
    private Throwable failure;        // why it closed, for operations attempted afterwards
    private boolean interestRead;     // the interest last asked of the socket: only a change is passed on
    private boolean interestWrite;
    private Promise<Void> done;       // an already completed future, shared by every immediate send
    private Set<Membership> memberships;
    private boolean handling;         // received datagrams are being handed out: sends are held
    private int held;                 // datagrams the socket holds for its next flushHeld
    private final java.util.function.Consumer<IOException> refused = this::heldRefused;
    private InetSocketAddress dropsOf; // where the loop reads the kernel's drops for this socket, or null

    private UdpEndpoint(NetRegistry net, DatagramOptions options, DatagramIo io, InetSocketAddress local)
            throws IOException {
        super(net.loop);
        this.net = net;
        this.options = options;
        this.closed = loop.newPromise();
        this.receiver = new DatagramReceiver(this);
        this.out = new DatagramQueue(loop, options.lowWatermark(), options.highWatermark());
        try {
            this.socket = io.open(local, options.kernelOptions(), this);
        } catch (UnsupportedOperationException e) {
            throw NetEntry.unsupported(net, e);
        }
    }

    /** Binds {@code local}, connects to {@code remote} if not null, and registers with the loop. */
    public static UdpEndpoint open(NetRegistry net, InetSocketAddress local, InetSocketAddress remote, DatagramOptions options)
            throws IOException {
        UdpEndpoint ep = new UdpEndpoint(net, options, NetEntry.datagrams(net), local);
        if (remote != null) {
            try {
                checkFamily(ep.socket.localAddress(), remote);
                ep.socket.connect(remote);
            } catch (IOException e) {
                ep.socket.close();
                SocketException named = new SocketException("cannot connect " + ep.socket.localAddress() + " to "
                        + remote + ": " + e.getMessage());
                named.initCause(e);
                throw named;
            } catch (RuntimeException e) {
                ep.socket.close();
                throw e;
            }
            ep.remote = remote;
        }
        net.add(ep);
        if (net.udpOpened(ep.socket.localAddress())) {
            ep.dropsOf = ep.socket.localAddress(); // from now on, snapshots read its drops
        }
        return ep;
    }

    /**
     * Refuses an IPv6 peer for an IPv4 socket, naming both, before the backend does so in its own
     * words (the JDK: an {@code UnsupportedAddressTypeException} without a message; epoll: "Address
     * family not supported"). An IPv6 socket may send to IPv4 peers: the kernel maps them.
     */
    private static void checkFamily(InetSocketAddress local, InetSocketAddress peer) {
        if (local.getAddress() instanceof Inet4Address && peer.getAddress() instanceof Inet6Address) {
            throw new IllegalArgumentException("cannot reach the IPv6 address " + peer + " from the IPv4 socket " + local
                    + ": bind the endpoint to an IPv6 address (:: for both families)");
        }
    }

    // ------------------------------------------------------------------ readiness

    @Override
    protected void ready(int ops) {
        if (state == CLOSED) {
            return;
        }
        // an error goes to both sides: whichever calls the kernel first gets it
        if ((ops & (WRITE | ERROR | HANGUP)) != 0) {
            writeReady();
        }
        if ((ops & (READ | ERROR | HANGUP)) != 0 && state == OPEN) {
            handling = true;
            try {
                receiver.receiveReady();
            } finally {
                handling = false;
            }
            flushHeld();
        }
        updateInterest();
    }

    /** Asks the socket for the readiness the receiver and the queue need now. */
    void updateInterest() {
        if (state == CLOSED) {
            return;
        }
        boolean r = state == OPEN && receiver.wantsReceive();
        boolean w = !out.isEmpty() || held > 0;
        if (r != interestRead || w != interestWrite) {
            interestRead = r;
            interestWrite = w;
            socket.interest(r, w);
        }
    }

    // ------------------------------------------------------------------ sending

    @Override
    public LoopFuture<Void> send(ByteBuffer data, InetSocketAddress target) {
        Objects.requireNonNull(data, "data");
        NetEntry.resolved(target, "target");
        checkFamily(socket.localAddress(), target);
        if (remote != null && !remote.equals(target)) {
            throw new IllegalArgumentException(this + " is connected to " + remote + ": cannot send to " + target);
        }
        return sendTo(data, remote != null ? null : target);
    }

    @Override
    public LoopFuture<Void> send(ByteBuffer data) {
        Objects.requireNonNull(data, "data");
        if (remote == null) {
            throw new IllegalStateException(this + " is not connected: send(data, target) names where to");
        }
        return sendTo(data, null);
    }

    /** Sends to {@code target}, or to the connected peer when it is null. */
    private LoopFuture<Void> sendTo(ByteBuffer data, InetSocketAddress target) {
        if (state != OPEN) {
            data.position(data.limit());
            return failed(closedCause());
        }
        if (out.isEmpty()) {
            int size = data.remaining();
            try {
                if (handling || held > 0) {
                    if (socket.hold(data, target)) {
                        held++;
                        net.datagramsOut(1);
                        return done();
                    }
                    if (held > 0) {
                        held = socket.flushHeld(refused); // those held first: datagrams leave in order
                    }
                }
                if (held == 0 && socket.send(data, target)) {
                    net.datagramsOut(1);
                    return done();
                }
            } catch (ClosedChannelException e) {
                closeNow(e);
                return failed(e);
            } catch (IOException e) {
                data.position(data.limit());
                return failed(nameSendError(e, size, target));
            }
        }
        Promise<Void> p = out.add(data, target);
        updateInterest();
        return p;
    }

    /** Sends the datagrams the socket holds; what the kernel has no room for waits for write readiness. */
    private void flushHeld() {
        if (held == 0 || state == CLOSED) {
            return;
        }
        try {
            held = socket.flushHeld(refused);
        } catch (ClosedChannelException e) {
            closeNow(e);
            return;
        } catch (IOException e) {
            held = 0; // the socket cannot send: the next send says why
            heldRefused(e);
        }
        if (held == 0 && out.isEmpty() && state == CLOSING) {
            closeNow(null); // closed by the handler while its answers were held: they have left now
        }
    }

    /** A held datagram the kernel refused: its future is done, so it is reported as a receive error is. */
    private void heldRefused(IOException e) {
        receiver.reportError("sending", nameSendError(e, -1, null));
    }

    /** The socket reported write readiness (or an error): send what is held, then what is queued. */
    private void writeReady() {
        flushHeld();
        if (held > 0 || out.isEmpty() || state == CLOSED) {
            return;
        }
        try {
            net.datagramsOut(out.flushTo(socket, namer));
        } catch (ClosedChannelException e) {
            closeNow(e);
            return;
        }
        if (out.isEmpty() && state == CLOSING) {
            closeNow(null);
        }
    }

    /** A send the kernel refused, named by the datagram's size and target. */
    private IOException nameSendError(IOException e, int size, InetSocketAddress target) {
        InetSocketAddress to = target != null ? target : remote;
        String what = size < 0 ? "a datagram held for a batched send" : "a datagram of " + size + " bytes";
        IOException named = e instanceof PortUnreachableException
                ? new PortUnreachableException("ICMP port unreachable: " + (to != null ? to : "a peer")
                        + " refused an earlier datagram; " + what + " was not sent")
                : new SocketException("cannot send " + what + (to != null ? " to " + to : "") + ": " + e.getMessage());
        named.initCause(e);
        return named;
    }

    /** A receive that failed, named by the peer (an ICMP error is about an earlier datagram sent there). */
    IOException nameReceiveError(IOException e) {
        if (e instanceof PortUnreachableException) {
            PortUnreachableException named = new PortUnreachableException("ICMP port unreachable: "
                    + (remote != null ? remote : "the peer") + " refused an earlier datagram");
            named.initCause(e);
            return named;
        }
        return e;
    }

    private Promise<Void> done() {
        Promise<Void> d = done;
        if (d == null) {
            d = done = loop.newPromise();
            d.complete(null);
        }
        return d;
    }

    private Promise<Void> failed(Throwable why) {
        Promise<Void> p = loop.newPromise();
        p.fail(why);
        return p;
    }

    @Override
    public boolean isWritable() {
        return out.isWritable();
    }

    @Override
    public long queuedBytes() {
        return out.queued();
    }

    @Override
    public LoopFuture<Void> drain() {
        if (state == CLOSED) {
            return failed(closedCause());
        }
        Promise<Void> d = out.drain();
        return d != null ? d : done();
    }

    // ------------------------------------------------------------------ receiving

    @Override
    public LoopFuture<Datagram> receive() {
        return receiver.receive(null);
    }

    @Override
    public LoopFuture<Datagram> receive(ByteBuffer dst) {
        return receiver.receive(Objects.requireNonNull(dst, "dst"));
    }

    @Override
    public void setHandler(DatagramHandler handler) {
        receiver.setHandler(handler);
    }

    @Override
    public void pauseReceiving() {
        receiver.pause();
    }

    @Override
    public void resumeReceiving() {
        receiver.resume();
    }

    // ------------------------------------------------------------------ multicast and options

    @Override
    public void joinGroup(InetAddress group, NetworkInterface nif) throws IOException {
        Membership m = membership(group, nif);
        if (memberships != null && memberships.contains(m)) {
            throw new IllegalStateException(this + " already joined " + group + " on " + nif.getName());
        }
        try {
            socket.joinGroup(group, nif);
        } catch (IOException | IllegalArgumentException e) {
            throw membershipFailed("join", m, e);
        }
        if (memberships == null) {
            memberships = new HashSet<>();
        }
        memberships.add(m);
    }

    @Override
    public void leaveGroup(InetAddress group, NetworkInterface nif) throws IOException {
        Membership m = membership(group, nif);
        if (memberships == null || !memberships.contains(m)) {
            throw new IllegalStateException(this + " has not joined " + group + " on " + nif.getName());
        }
        try {
            socket.leaveGroup(group, nif);
        } catch (IOException | IllegalArgumentException e) {
            throw membershipFailed("leave", m, e);
        }
        memberships.remove(m);
    }

    private Membership membership(InetAddress group, NetworkInterface nif) throws IOException {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(nif, "nif");
        if (!group.isMulticastAddress()) {
            throw new IllegalArgumentException("not a multicast address: " + group);
        }
        if (group instanceof Inet6Address && socket.localAddress().getAddress() instanceof Inet4Address) {
            throw new IllegalArgumentException("cannot join the IPv6 group " + group + " on an IPv4 socket (" + this
                    + "): bind an IPv6 address");
        }
        if (state != OPEN) {
            throw new ClosedChannelException();
        }
        return new Membership(group, nif);
    }

    private static SocketException membershipFailed(String what, Membership m, Exception e) {
        SocketException named = new SocketException("cannot " + what + " " + m.group() + " on " + m.nif().getName()
                + ": " + e.getMessage());
        named.initCause(e);
        return named;
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        Objects.requireNonNull(option, "option");
        if (state == CLOSED) {
            throw new ClosedChannelException();
        }
        socket.setOption(option, value);
    }

    // ------------------------------------------------------------------ closing

    @Override
    public LoopFuture<Void> close() {
        if (state == OPEN) {
            state = CLOSING;
            receiver.failReceive(new ClosedChannelException());
            if (out.isEmpty() && held == 0) {
                closeNow(null);
            } else {
                updateInterest();
            }
        }
        return closed;
    }

    @Override
    public void abort() {
        if (state != CLOSED) {
            closeNow(new IOException(this + " aborted"));
        }
    }

    @Override
    public void loopClosing(IOException why) {
        closeNow(why);
        closed.tryComplete(null); // the backend closes every descriptor with the loop
    }

    /**
     * Closes the socket at once and fails everything pending with {@code error} (null: a normal
     * close, pending operations fail with {@link ClosedChannelException}).
     */
    void closeNow(Throwable error) {
        if (state == CLOSED) {
            return;
        }
        state = CLOSED;
        failure = error;
        socket.close();
        net.remove(this);
        if (dropsOf != null) {
            net.udpClosed(dropsOf);
        }
        Throwable why = error != null ? error : new ClosedChannelException();
        receiver.failReceive(why);
        out.fail(why);
        receiver.closed(error); // the handler hears last, when every future has failed
        socket.whenReleased(() -> closed.tryComplete(null));
    }

    /** What an operation on an endpoint that is not open fails with. */
    Throwable closedCause() {
        return state == CLOSED && failure != null ? failure : new ClosedChannelException();
    }

    // ------------------------------------------------------------------ state

    @Override
    public Loop loop() {
        return loop;
    }

    @Override
    public LoopFuture<Void> closeFuture() {
        return closed;
    }

    @Override
    public boolean isOpen() {
        return state == OPEN;
    }

    @Override
    public InetSocketAddress localAddress() {
        return socket.localAddress();
    }

    @Override
    public void describeTo(LogContext context) {
        context.connection(socket.localAddress(), remote);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public DatagramOptions options() {
        return options;
    }

    @Override
    public String toString() {
        long queued = out.queued();
        return "DatagramEndpoint[" + socket.localAddress() + (remote == null ? "" : " -> " + remote) + ", "
                + STATE_NAMES[state] + (queued > 0 ? ", " + queued + " B queued" : "") + "]";
    }
}
