package dev.loop.net.stream;

import dev.loop.log.LogContext;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.TlsOptions;
import dev.loop.net.Unix;
import dev.loop.net.tls.TlsStart;
import dev.loop.net.transport.Addresses;
import dev.loop.net.transport.CoalescedReadiness;
import dev.loop.net.transport.NetRegistry;
import dev.loop.net.transport.RepeatedFailure;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The engine's {@link Server}. Not thread-safe: loop thread only. Like a connection it is its own
 * readiness receiver and callback ({@link CoalescedReadiness}): the poll only schedules it,
 * accepting happens in the callback phase, at most {@link ServerOptions#maxAcceptsPerWakeup()}
 * connections per readiness event.
 */
public final class TcpServer extends CoalescedReadiness implements Server, NetRegistry.Owned, LogContext.Subject {
    /** Where a group's accepting loop sends accepted sockets instead of adopting them itself. */
    interface Dispatch {
        /** Called on the accepting loop's thread with a socket no poller knows yet. */
        void dispatch(IoSocket accepted);
    }

    /**
     * How long accepting pauses after accept() failed (out of file descriptors, typically): the
     * listening socket stays readable, and retrying at once would spin the loop.
     */
    static final Duration ACCEPT_BACKOFF = Duration.ofMillis(100);

    private final NetRegistry net;
    private final ServerOptions options;
    private final Consumer<Connection> onAccept;
    private final Set<StreamConnection> connections = new LinkedHashSet<>();
    private final Map<SocketOption<?>, Object> acceptedOptions;
    private IoServerSocket socket;
    private SocketAddress local;
    private boolean open;
    private Dispatch dispatch; // null: connections stay on this loop
    private SocketAddress name; // a Unix socket's name, which its accepted sockets are given; null for TCP
    private Runnable afterClose; // a Unix socket's file removal
    private final RepeatedFailure acceptFailures;
    private final RepeatedFailure handshakeFailures; // peers' doing: summarised, never a record each
    private final Runnable resumeAccepting = this::resumeAccepting;
    private TlsOptions tls;    // null: plain TCP
    private Promise<Void> shutdown; // non-null once a graceful shutdown began
    private TimerHandle shutdownTimer; // the deadline, then the flush limit

    public TcpServer(NetRegistry net, ServerOptions options, Consumer<Connection> onAccept) {
        this(net, options, tcpAcceptedOptions(options), onAccept);
    }

    /** A server whose accepted sockets are given {@code acceptedOptions} (a Unix socket takes no TCP ones). */
    public TcpServer(NetRegistry net, ServerOptions options, Map<SocketOption<?>, Object> acceptedOptions,
              Consumer<Connection> onAccept) {
        super(net.loop);
        this.net = net;
        this.options = options;
        this.onAccept = onAccept;
        this.acceptedOptions = acceptedOptions;
        this.acceptFailures = new RepeatedFailure(net, this);
        this.handshakeFailures = new RepeatedFailure(net, this);
    }

    private static Map<SocketOption<?>, Object> tcpAcceptedOptions(ServerOptions options) {
        Map<SocketOption<?>, Object> o = options.accepted().kernelOptions();
        // the receive buffer was set on the listener and is inherited: setting it again is too late
        o.remove(java.net.StandardSocketOptions.SO_RCVBUF);
        return o;
    }

    /** Serves TLS with {@code options} (null: plain TCP); set before {@link #listen}. */
    public void tls(TlsOptions options) {
        this.tls = options;
    }

    /** Hands every accepted socket to {@code d}; set before {@link #listen}. */
    void dispatchTo(Dispatch d) {
        this.dispatch = d;
    }

    /**
     * Makes this a server without a socket of its own, which adopts the connections another loop of
     * its group accepted on {@code address} (see {@link #adoptFrom}).
     */
    void shard(InetSocketAddress address) {
        local = address;
        open = true;
        net.add(this);
    }

    public void listen(InetSocketAddress address) throws IOException {
        bound(net.io.listen(address, options.backlog(), options.kernelOptions(), this));
    }

    /** Starts accepting on a socket bound for this server. */
    public void bound(IoServerSocket s) {
        socket = s;
        local = name != null ? name : s.localAddress();
        open = true;
        net.add(this);
        s.interest(true, false);
    }

    /**
     * Makes this a Unix domain socket server called {@code unixName}: its connections are named by
     * it (the backend cannot name every kind of Unix address), and {@code cleanup} runs once when
     * it closes. Before {@link #bound}.
     */
    public void unix(SocketAddress unixName, Runnable cleanup) {
        this.name = unixName;
        this.afterClose = cleanup;
    }

    /**
     * Any readiness of a listening socket means "accept": errors surface from accept itself. A
     * failed accept (out of descriptors, typically) pauses accepting for {@link #ACCEPT_BACKOFF}
     * before anything else, so the loop keeps serving the connections it has and does not spin on
     * the listening socket, which stays readable; the failure is then reported, rate-limited
     * ({@link RepeatedFailure}), in a way that cannot throw.
     */
    @Override
    protected void ready(int ops) {
        for (int i = 0; i < options.maxAcceptsPerWakeup() && open; i++) {
            IoSocket s;
            try {
                s = socket.accept();
            } catch (IOException | RuntimeException e) {
                net.stats.acceptFailed();
                socket.interest(false, false);
                loop.callLater(ACCEPT_BACKOFF, resumeAccepting);
                acceptFailures.failed("accepting on " + local + " failed; pausing accepts for "
                        + ACCEPT_BACKOFF.toMillis() + " ms each time, serving open connections meanwhile", e);
                return;
            }
            if (s == null) {
                return;
            }
            net.stats.accepted();
            if (acceptFailures.isFailing()) {
                acceptFailures.succeeded("accepting on " + local + " works again");
            }
            if (dispatch != null) {
                dispatch.dispatch(s);
            } else {
                adopt(s);
            }
        }
    }

    private void resumeAccepting() {
        if (open) {
            socket.interest(true, false);
        }
    }

    /**
     * Takes over a socket that another loop of the group accepted; on this loop's thread, from its
     * inbox. A closed server, or a socket that cannot be registered here, closes it.
     */
    void adoptFrom(IoSocket foreign) {
        if (!open) {
            foreign.close();
            return;
        }
        IoSocket mine;
        try {
            mine = net.io.adopt(foreign);
        } catch (IOException | RuntimeException e) {
            foreign.close();
            net.report("adopting a connection from " + foreign.remoteAddress() + " failed; closed it", e, this);
            return;
        }
        adopt(mine);
    }

    /** Adopts a socket accepted on this loop. */
    void adopt(IoSocket s) {
        SocketAddress peer = name != null ? Addresses.UNNAMED_UNIX : s.remoteAddress();
        StreamConnection c = new StreamConnection(net, options.accepted(), this, name, peer);
        try {
            for (Map.Entry<SocketOption<?>, Object> e : acceptedOptions.entrySet()) {
                setOption(s, e.getKey(), e.getValue());
            }
        } catch (IOException | RuntimeException e) {
            s.close();
            net.report("setting options on a connection from " + s.remoteAddress() + " failed; closed it", e, this);
            return;
        }
        if (tls != null) {
            handshakeThenAccept(c, s);
            return;
        }
        c.accepted(s);
        connections.add(c);
        accept(c);
    }

    private void accept(StreamConnection c) {
        try {
            onAccept.accept(c);
        } catch (RuntimeException e) {
            net.report("exception in the accept handler of " + this, e, onAccept, c);
        }
    }

    /**
     * TLS: the user meets the connection once its handshake is done. A failed handshake closed the
     * connection already; it is reported (naming the peer) unless the server or the loop is closing,
     * rate-limited: any peer can fail a handshake as often as it connects ({@link RepeatedFailure}).
     */
    private void handshakeThenAccept(StreamConnection c, IoSocket socket) {
        connections.add(c); // closed with the server even while it handshakes
        c.acceptedOpening(socket, TlsStart.server(net, socket, c, tls, TlsStart.tcpPeer(c.remote))).onDone(f -> {
            if (f.isSuccess()) {
                accept(c);
            } else if (open && !dev.loop.engine.Engine.of(loop).isClosing()) {
                handshakeFailures.failed("TLS handshake with " + c.remote + " on " + local + " failed; closed the connection",
                        f.exception(), c);
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> void setOption(IoSocket s, SocketOption<T> option, Object value) throws IOException {
        s.setOption(option, (T) value);
    }

    void removed(StreamConnection c) {
        connections.remove(c);
        if (shutdown != null && connections.isEmpty()) {
            shutdownDone();
        }
    }

    @Override
    public LoopFuture<Void> shutdown(Duration deadline) {
        java.util.Objects.requireNonNull(deadline, "deadline");
        if (deadline.isNegative()) {
            throw new IllegalArgumentException("a shutdown deadline must not be negative: " + deadline);
        }
        if (shutdown != null) {
            return shutdown;
        }
        close(false);
        shutdown = loop.newPromise();
        for (StreamConnection c : new ArrayList<>(connections)) {
            if (c.isOpen()) {
                c.serverShuttingDown();
            } else {
                c.close(); // still in its TLS handshake, which its user never saw (one already closing: nothing)
            }
        }
        if (connections.isEmpty()) {
            shutdownDone();
        } else {
            shutdownTimer = loop.callLater(deadline, this::shutdownDeadline);
        }
        return shutdown;
    }

    /** The deadline passed: what is still open closes, sending its queue first, within the flush limit. */
    private void shutdownDeadline() {
        shutdownTimer = loop.callLater(SHUTDOWN_FLUSH_LIMIT, this::shutdownFlushLimit);
        for (StreamConnection c : new ArrayList<>(connections)) {
            c.close();
        }
    }

    /** A peer did not take its queue in time: it gets a reset, and the shutdown ends. */
    private void shutdownFlushLimit() {
        shutdownTimer = null;
        for (StreamConnection c : new ArrayList<>(connections)) {
            c.abort();
        }
    }

    private void shutdownDone() {
        if (shutdownTimer != null) {
            shutdownTimer.cancel();
            shutdownTimer = null;
        }
        shutdown.tryComplete(null);
    }

    @Override
    public void close(boolean closeConnections) {
        if (open) {
            open = false;
            if (socket != null) {
                socket.close();
            }
            net.remove(this);
            cleanUp();
            acceptFailures.close();
            handshakeFailures.close();
        }
        if (closeConnections) {
            for (StreamConnection c : new ArrayList<>(connections)) {
                c.close();
            }
        }
    }

    @Override
    public void loopClosing(IOException why) {
        open = false;
        if (socket != null) {
            socket.close();
        }
        cleanUp();
        acceptFailures.close(); // the count of the last interval, rather than never
        handshakeFailures.close();
    }

    private void cleanUp() {
        Runnable r = afterClose;
        afterClose = null;
        if (r != null) {
            r.run();
        }
    }

    @Override
    public Loop loop() {
        return loop;
    }

    @Override
    public InetSocketAddress localAddress() {
        return Addresses.inet(local, this);
    }

    @Override
    public SocketAddress localSocketAddress() {
        return local;
    }

    @Override
    public List<Connection> connections() {
        return List.copyOf(connections);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Where it listens, as bound (a Unix socket's name); for its connections' log context. */
    SocketAddress local() {
        return local;
    }

    @Override
    public void describeTo(LogContext context) {
        context.server(local);
    }

    @Override
    public String toString() {
        return "Server[" + local + (open ? "" : ", closed") + ", " + connections.size() + " connections]";
    }
}
