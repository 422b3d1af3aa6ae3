package dev.loop.net.stream;

import dev.loop.log.LogContext;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.PeerCredentials;
import dev.loop.net.TlsInfo;
import dev.loop.net.TlsOptions;
import dev.loop.net.tls.TlsStart;
import dev.loop.net.tls.TlsTransport;
import dev.loop.net.transport.Addresses;
import dev.loop.net.transport.CoalescedReadiness;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoSocket;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/**
 * The engine's {@link Connection} on an {@link IoTransport}; not thread-safe (loop thread only).
 *
 * <p>This class is the state machine (connecting, open, closing, closed): opening, readiness
 * dispatch, closing and the idle timeout. Reading is a {@link StreamReader}'s, writing a
 * {@link StreamWriter}'s; the bytes come and go through the transport: the backend's socket, or a
 * TLS layer over it, which this class asks for and swaps in itself. Every public operation enters
 * here and the reader and writer are reached only through this class, so a rule for all of them
 * (which thread may call) has one place to go.
 *
 * <p>The connection is its own readiness receiver and its own callback ({@link CoalescedReadiness}):
 * the poll only records the bits and schedules it once; {@link #ready} (in the callback phase)
 * flushes, then reads, then passes on the interest the two now need. A read or write on a ready
 * transport therefore allocates nothing but the future the caller asked for.
 */
public final class StreamConnection extends CoalescedReadiness implements Connection, NetRegistry.Owned, LogContext.Subject {
    private static final int CONNECTING = 0;
    private static final int OPEN = 1;
    private static final int CLOSING = 2; // graceful: flushing the queue, then closing
    private static final int CLOSED = 3;
    private static final String[] STATE_NAMES = {"connecting", "open", "closing", "closed"};

    final NetRegistry net;
    final ConnectionOptions options;
    final SocketAddress remote;
    private final SocketAddress local; // null: ask the transport; else a name the backend cannot report
    private final TcpServer server;   // null for a client connection
    private final StreamReader reader;
    private final StreamWriter writer;
    IoTransport transport;            // set by connect or accepted, replaced once by startTls; read by the reader and writer
    TlsTransport tls;                 // the TLS layer this connection put on (connect, accept or startTls), or null
    IoSocket socket;                  // the backend's socket under any layer, for what only it can answer (UnixPeers)
    private int state;

    // the interest last asked of the transport: only a change is passed on
    private boolean interestRead;
    private boolean interestWrite;

    private Promise<Connection> connecting;
    private TimerHandle connectTimer;

    private final Promise<Void> closed;
    private Throwable failure;        // why it closed, for operations attempted afterwards
    private final IdleTimeout idle;   // null without an idle timeout
    private long bytesIn;             // for the dev.loop.ConnectionClosed event
    private long bytesOut;
    private long openedAt;            // 0 unless a recording wants dev.loop.ConnectionClosed

    /** {@code local}: a name the backend cannot report (a Linux abstract one), or null to ask the transport. */
    public StreamConnection(NetRegistry net, ConnectionOptions options, TcpServer server, SocketAddress local, SocketAddress remote) {
        super(net.loop);
        this.net = net;
        this.options = options;
        this.server = server;
        this.local = local;
        this.remote = remote;
        this.closed = loop.newPromise();
        this.reader = new StreamReader(this);
        this.writer = new StreamWriter(this);
        this.idle = options.idleTimeout().isZero() ? null : new IdleTimeout(this, loop, options.idleTimeout());
    }

    // ------------------------------------------------------------------ opening

    /** Starts a TCP connect, with a TLS handshake after it if {@code tls} is set; the future completes with this connection. */
    public LoopFuture<Connection> connect(TlsOptions tls) {
        InetSocketAddress to = (InetSocketAddress) remote;
        return connectThrough(ready -> net.io.connect(to, options.kernelOptions(), ready), tls);
    }

    /** Starts a connect through {@code dial}, TLS over it if {@code tls} is set; the future completes with this. */
    public LoopFuture<Connection> connectThrough(Dial dial, TlsOptions tls) {
        connecting = loop.newPromise();
        state = CONNECTING;
        try {
            // the socket reports here until a TLS layer attaches itself, before any poll
            socket = dial.open(this);
            transport = tls == null ? socket : (this.tls = TlsStart.client(net, socket, this, tls, TlsStart.tcpPeer(remote)));
        } catch (IOException e) {
            state = CLOSED;
            closed.tryComplete(null);
            connecting.fail(describe(e));
            return connecting;
        }
        net.add(this);
        countOpened();
        setInterest(false, true);
        if (!options.connectTimeout().isZero()) {
            connectTimer = loop.callLater(options.connectTimeout(), () -> {
                if (state == CONNECTING) {
                    closeNow(new SocketTimeoutException("connect to " + remote + " timed out after "
                            + options.connectTimeout().toMillis() + " ms"));
                }
            });
        }
        // A caller that gives up on the connect (cancels the future, or a timeout around it does)
        // leaves nobody to close this connection: it closes itself, connected by then or not.
        connecting.onDone(f -> {
            if (f.isCancelled()) {
                closeNow(null);
            }
        });
        return connecting;
    }

    /** Adopts a socket the server accepted. */
    void accepted(IoSocket s) {
        socket = s;
        transport = s;
        s.attach(this);
        state = OPEN;
        net.add(this);
        countOpened();
        startIdleTimer();
    }

    /**
     * Adopts a transport that is open already and has no socket under it (a pipe to a child
     * process, dev.loop.process): the connection is open at once and owned by the loop.
     */
    public void opened(IoTransport t) {
        transport = t;
        t.attach(this);
        state = OPEN;
        net.add(this);
        countOpened();
        startIdleTimer();
    }

    /**
     * Adopts {@code t} over the accepted socket {@code s}, which must finish opening first (a TLS
     * handshake): the connection stays connecting, and the future completes once it is open.
     */
    LoopFuture<Connection> acceptedOpening(IoSocket s, TlsTransport t) {
        connecting = loop.newPromise();
        socket = s;
        transport = tls = t;
        t.attach(this);
        state = CONNECTING;
        net.add(this);
        countOpened();
        setInterest(false, true);
        return connecting;
    }

    private IOException describe(IOException e) {
        if (e instanceof ConnectException && !String.valueOf(e.getMessage()).contains(remote.toString())) {
            ConnectException named = new ConnectException(e.getMessage() + ": " + remote);
            named.initCause(e);
            return named;
        }
        return e;
    }

    private void finishConnect() {
        try {
            if (!transport.finishConnect()) {
                return;
            }
        } catch (IOException e) {
            closeNow(describe(e));
            return;
        }
        state = OPEN;
        if (connectTimer != null) {
            connectTimer.cancel();
            connectTimer = null;
        }
        startIdleTimer();
        updateInterest();
        Promise<Connection> p = connecting;
        connecting = null;
        p.tryComplete(this);
    }

    // ------------------------------------------------------------------ readiness

    @Override
    protected void ready(int ops) {
        if (state == CLOSED) {
            return;
        }
        if (state == CONNECTING) {
            finishConnect();
            return;
        }
        // an error or a hang-up goes to both sides: the next call of each reports it
        if ((ops & (WRITE | ERROR | HANGUP)) != 0) {
            writer.writeReady();
        }
        if ((ops & (READ | ERROR | HANGUP)) != 0) {
            reader.readReady();
        }
        updateInterest();
    }

    /** Asks the transport for the readiness the reader and writer need now. */
    void updateInterest() {
        if (state == CLOSED) {
            return;
        }
        boolean r = state == OPEN && reader.wantsRead();
        boolean w = state == CONNECTING || writer.hasQueued();
        setInterest(r, w);
    }

    private void setInterest(boolean r, boolean w) {
        if (r != interestRead || w != interestWrite) {
            interestRead = r;
            interestWrite = w;
            transport.interest(r, w);
        }
    }

    // ------------------------------------------------------------------ reading and writing

    /**
     * The one thread rule: every operation that changes the connection runs on the loop thread, or
     * on any thread while the loop is not running (setting up before {@code runForever}, as
     * {@code Net} allows). Anything else would race the loop, so it is refused, naming the thread
     * and the loop, rather than handed to the loop behind the caller's back: what the caller sees
     * right after the call ({@code isWritable}, a pending read, an immediate write's future) would
     * then depend on when the loop got to it. {@code loop.callSoon} is the explicit way across.
     */
    private void checkThread(String op) {
        if (!loop.inLoop() && loop.isRunning()) {
            throw new IllegalStateException(op + "() on thread " + Thread.currentThread().getName() + " while " + loop
                    + " runs on another thread: a connection is not thread-safe; run this on the loop thread"
                    + " (loop.callSoon, or a task of the loop): " + this);
        }
    }

    @Override
    public LoopFuture<Integer> read(ByteBuffer dst) {
        checkThread("read");
        return reader.read(dst);
    }

    @Override
    public LoopFuture<ByteBuffer> readExactly(int n) {
        checkThread("readExactly");
        return reader.readExactly(n);
    }

    @Override
    public LoopFuture<ByteBuffer> readUntil(byte[] delimiter, int maxLength) {
        checkThread("readUntil");
        return reader.readUntil(delimiter, maxLength);
    }

    @Override
    public LoopFuture<String> readLine(int maxLength) {
        checkThread("readLine");
        return reader.readLine(maxLength);
    }

    @Override
    public void setHandler(ConnectionHandler handler) {
        checkThread("setHandler");
        reader.setHandler(handler);
    }

    @Override
    public void pauseReading() {
        checkThread("pauseReading");
        reader.pauseReading();
    }

    @Override
    public void resumeReading() {
        checkThread("resumeReading");
        reader.resumeReading();
    }

    @Override
    public LoopFuture<Void> write(ByteBuffer src) {
        checkThread("write");
        return writer.write(src);
    }

    @Override
    public LoopFuture<Long> sendFile(FileChannel file, long position, long count) {
        checkThread("sendFile");
        return writer.sendFile(file, position, count);
    }

    @Override
    public boolean isWritable() {
        return writer.isWritable();
    }

    @Override
    public long queuedBytes() {
        return writer.queuedBytes();
    }

    @Override
    public LoopFuture<Void> drain() {
        checkThread("drain");
        return writer.drain();
    }

    @Override
    public void shutdownOutput() {
        checkThread("shutdownOutput");
        writer.shutdownOutput();
    }

    // ------------------------------------------------------------------ TLS

    @Override
    public LoopFuture<Connection> startTls(TlsOptions tls) {
        return StartTls.upgrade(this, reader, tls, server == null, writer.queuedBytes(), interestRead, interestWrite);
    }

    @Override
    public TlsInfo tls() {
        return tls == null ? null : tls.info();
    }

    @Override
    public PeerCredentials peerCredentials() throws IOException {
        return UnixPeers.credentials(this);
    }

    // ------------------------------------------------------------------ closing

    @Override
    public LoopFuture<Void> close() {
        checkThread("close");
        if (state == CONNECTING) {
            closeNow(new ClosedChannelException());
        } else if (state == OPEN) {
            state = CLOSING;
            reader.failRead(new ClosedChannelException());
            if (writer.hasQueued()) {
                updateInterest();
            } else {
                closeNow(null);
            }
        }
        return closed;
    }

    /** Its server began a graceful shutdown: the handler hears it while the connection is open. */
    void serverShuttingDown() {
        if (state == OPEN) {
            reader.serverShuttingDown();
        }
    }

    /** The writer's queue emptied: a graceful close that waited for it finishes now. */
    void flushed() {
        if (state == CLOSING) {
            closeNow(null);
        }
    }

    @Override
    public void abort() {
        checkThread("abort");
        if (state == CLOSED) {
            return;
        }
        transport.abort();
        closeNow(new IOException("connection to " + remote + " aborted"), false);
    }

    @Override
    public void loopClosing(IOException why) {
        closeNow(why);
    }

    /** Closes at once because of {@code error}: the reader or writer hit it, or a timeout fired. */
    void closeNow(IOException error) {
        closeNow(error, true);
    }

    /**
     * Closes the transport at once and fails everything pending with {@code error} (null: a normal
     * close, pending operations fail with {@link ClosedChannelException}).
     */
    private void closeNow(IOException error, boolean closeTransport) {
        if (state == CLOSED) {
            return;
        }
        state = CLOSED;
        failure = error;
        if (closeTransport && transport != null) {
            transport.close();
        }
        net.remove(this);
        net.stats.connectionClosed();
        if (openedAt != 0) {
            ConnectionEvents.closed(this, error, bytesIn, bytesOut, System.nanoTime() - openedAt);
        }
        if (server != null) {
            server.removed(this);
        }
        cancel(connectTimer);
        if (idle != null) {
            idle.cancel();
        }
        Throwable why = error != null ? error : new ClosedChannelException();
        if (connecting != null) {
            connecting.tryFail(why);
            connecting = null;
        }
        reader.failRead(why);
        writer.closed(why);
        reader.closed(error); // the handler hears last, when every future has failed
        closed.tryComplete(null);
    }

    /** What an operation on a connection that is not open fails with. */
    Throwable closedCause() {
        return state == CLOSED && failure != null ? failure : new ClosedChannelException();
    }

    private static void cancel(TimerHandle t) {
        if (t != null) {
            t.cancel();
        }
    }

    // ------------------------------------------------------------------ idle timeout

    /** Bytes moved: the idle timeout counts from now. */
    private void countOpened() {
        net.stats.connectionOpened();
        ConnectionEvents.opened(this);
        if (ConnectionEvents.wantsClosed()) {
            openedAt = System.nanoTime();
        }
    }

    /** A read returned {@code n > 0} bytes: counted, and the connection is not idle. */
    void received(int n) {
        bytesIn += n;
        net.stats.streamRead(n);
        if (idle != null) {
            idle.touch();
        }
    }

    /** {@code n > 0} bytes were written: counted, and the connection is not idle. */
    void sent(long n) {
        bytesOut += n;
        net.stats.bytesOut(n);
        if (idle != null) {
            idle.touch();
        }
    }

    private void startIdleTimer() {
        if (idle != null) {
            idle.start();
        }
    }

    /** The idle timeout expired: the peer gets a reset, not a graceful end. */
    void idledOut(IOException why) {
        transport.abort();
        closeNow(why, false);
    }

    // ------------------------------------------------------------------ state

    boolean isClosed() {
        return state == CLOSED;
    }

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
    public boolean isInputShutdown() {
        return reader.isEof();
    }

    @Override
    public InetSocketAddress localAddress() {
        return Addresses.inet(localSocketAddress(), this);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return Addresses.inet(remote, this);
    }

    @Override
    public SocketAddress localSocketAddress() {
        return local != null ? local : transport == null ? null : transport.localAddress();
    }

    @Override
    public SocketAddress remoteSocketAddress() {
        return remote;
    }

    @Override
    public ConnectionOptions options() {
        return options;
    }

    /**
     * The local address as the transport reports it; once the socket is closed (a failed handshake
     * is reported after the close) an accepted connection's is its server's, which it shares unless
     * the server listens on a wildcard address. Asks nothing of the kernel when nobody logs.
     */
    @Override
    public void describeTo(LogContext context) {
        SocketAddress here;
        try {
            here = localSocketAddress();
        } catch (RuntimeException closed) {
            here = null;
        }
        if (here == null && server != null) {
            here = server.local();
        }
        context.connection(here, remote);
    }

    @Override
    public String toString() {
        long queued = writer.queuedBytes();
        return "Connection[" + remote + ", " + STATE_NAMES[state] + (queued > 0 ? ", " + queued + " B queued" : "") + "]";
    }
}
