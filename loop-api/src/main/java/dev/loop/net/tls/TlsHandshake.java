package dev.loop.net.tls;

import dev.loop.Loop;
import dev.loop.TimerHandle;
import dev.loop.net.TlsInfo;
import dev.loop.net.TlsOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Drives one connection's engine through what it asks for besides moving application data, not
 * thread-safe (loop thread only): the handshake, then post-handshake messages (TLS 1.3 key
 * updates and session tickets; TLS 1.2 renegotiation, which a server refuses). Also its timeout,
 * the choice of a server's context by SNI, offloading the engine's delegated tasks, and errors
 * that say what failed and with whom.
 *
 * <p><b>Delegated tasks</b> (key exchange, signatures, certificate path checks) take 1 to 4 ms of
 * CPU each on the machine this was measured on (docs/adr/0009-tls.md), which on the loop thread
 * would stall every other connection for as long; there is no cheap kind worth running inline. So
 * they run on {@link TlsOptions#taskExecutor()} (a virtual thread per batch by default) and the
 * handshake resumes in a loop callback when they are done. The engine is thread-safe for this: the
 * JDK documents that delegated tasks may run on any thread.
 */
final class TlsHandshake {
    private final TlsTransport transport;
    private final TlsRecords rec;
    private final TlsOptions options;
    private final Loop loop;
    final boolean client;
    final InetSocketAddress peer;

    boolean started;
    boolean done;                 // the first handshake finished
    boolean taskRunning;          // delegated tasks run elsewhere: the engine waits for them
    boolean waitingForPeer;       // the engine needs bytes the socket has not delivered yet
    private boolean checkedFirstBytes;
    private boolean tls13;
    private TimerHandle timer;
    long startedAt;
    TlsInfo info;

    TlsHandshake(TlsTransport transport, TlsRecords rec, TlsOptions options, boolean client, InetSocketAddress peer) {
        this.transport = transport;
        this.rec = rec;
        this.options = options;
        this.loop = transport.loop;
        this.client = client;
        this.peer = peer;
    }

    /** Arms the timeout and makes the engine (a server that chooses by SNI makes it once it knows the name). */
    void start() throws SSLException {
        started = true;
        startedAt = System.nanoTime(); // once per handshake, for the dev.loop.TlsHandshake event
        if (!options.handshakeTimeout().isZero()) {
            timer = loop.callLater(options.handshakeTimeout(), this::timedOut);
        }
        if (client || options.serverContexts().isEmpty()) {
            makeEngine(null);
        } else {
            waitingForPeer = true;
        }
    }

    private void makeEngine(String sniName) throws SSLException {
        rec.engine = options.newEngine(client, peer, client ? options.context() : options.contextFor(sniName));
        rec.engine.beginHandshake();
    }

    private void timedOut() {
        timer = null;
        if (!done) {
            SSLHandshakeException e = new SSLHandshakeException("TLS handshake with " + peer + " timed out after "
                    + options.handshakeTimeout().toMillis() + " ms");
            e.initCause(new SocketTimeoutException());
            transport.fail(e);
        }
    }

    void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /**
     * Does what the engine asks for until it waits for the peer, the socket or a task, or has
     * nothing more to do.
     *
     * @throws IOException why the handshake or the connection failed, already described
     */
    void step() throws IOException {
        try {
            if (rec.engine == null && !chooseContext()) {
                return;
            }
            for (;;) {
                waitingForPeer = false;
                if (taskRunning) {
                    return;
                }
                HandshakeStatus hs = rec.engine.getHandshakeStatus();
                if (done && !client && !tls13 && (hs == HandshakeStatus.NEED_TASK || hs == HandshakeStatus.NEED_UNWRAP)) {
                    // a new ClientHello (answering close_notify or sending an alert is NEED_WRAP only)
                    throw new SSLHandshakeException("TLS renegotiation requested by " + peer
                            + " refused: servers here do not renegotiate (TLS 1.2 and older)");
                }
                switch (hs) {
                    case NEED_TASK -> runTasks();
                    case NEED_WRAP -> {
                        if (rec.hasBacklog() && !rec.flush()) {
                            return; // the socket is full: on with it once it drains
                        }
                        rec.wrapEmpty();
                        if (!rec.flush()) {
                            return;
                        }
                    }
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                        if (!unwrap()) {
                            waitingForPeer = !rec.inboundDone;
                            return;
                        }
                    }
                    default -> {
                        rec.needsService = false;
                        if (!done) {
                            finished();
                        }
                        return;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            try {
                rec.wrapPending(); // the alert the engine made, so the peer learns why
                rec.flush();
            } catch (IOException | RuntimeException ignored) {
                // the first failure is the one to report
            }
            throw describe(e);
        }
    }

    /**
     * Unwraps one handshake message if all of it is here, else reads the socket once.
     *
     * @return true if it made progress (call again), false if it must wait for the peer
     */
    private boolean unwrap() throws IOException {
        if (rec.hasRecord()) {
            checkFirstBytes();
            long before = rec.consumedIn;
            SSLEngineResult r = rec.unwrapToHeld();
            if (r.getStatus() == SSLEngineResult.Status.CLOSED && !done) {
                throw new SSLHandshakeException("the peer closed the TLS session during the handshake");
            }
            if (rec.consumedIn > before || r.getHandshakeStatus() != HandshakeStatus.NEED_UNWRAP) {
                return true;
            }
            // the engine wants more than the record header announced (an SSLv2-format hello): read on
        }
        int n = rec.readMore(0);
        if (n < 0) {
            if (done) {
                return false; // after the handshake the reader sees the end of stream
            }
            throw new SSLHandshakeException("the peer closed the connection during the handshake");
        }
        checkFirstBytes();
        return n > 0;
    }

    /**
     * Fails at once, with what was received, when the first bytes of the peer are not TLS at all
     * (a plaintext client on a TLS port, a TLS client on a plaintext one): otherwise their bogus
     * record length could leave the handshake waiting for bytes that never come.
     */
    private void checkFirstBytes() throws SSLHandshakeException {
        ByteBuffer b = rec.held();
        if (checkedFirstBytes || b == null || !b.hasRemaining()) {
            return;
        }
        checkedFirstBytes = true;
        int type = b.get(b.position()) & 0xff;
        boolean tls = type == 22 || type == 21 || (!client && (type & 0x80) != 0); // handshake, alert, SSLv2 hello
        if (tls && (type & 0x80) != 0 && !sslv2HelloEnabled()) {
            refuseSslv2Hello(b);
        }
        if (!tls) {
            throw new SSLHandshakeException("the peer sent bytes that are not TLS: \"" + printable(b)
                    + "\" (a plaintext " + (client ? "server" : "client") + "?)");
        }
    }

    private boolean sslv2HelloEnabled() {
        return rec.engine != null && List.of(rec.engine.getEnabledProtocols()).contains("SSLv2Hello");
    }

    /**
     * Refuses an SSLv2-format ClientHello at its first byte: nothing here accepts one (the JDK
     * enables SSLv2Hello nowhere by default), and waiting for the rest would let a peer hold the
     * connection for the whole handshake timeout. A hello that offers SSL 3 or later (its version's
     * major byte is 3) comes from a client that reads TLS records, so it is told why in one: a fatal
     * protocol_version alert, written by hand because the engine never saw the hello; a true SSLv2
     * client could read no alert we can write, and is only closed.
     */
    private void refuseSslv2Hello(ByteBuffer b) throws SSLHandshakeException {
        int p = b.position();
        if (b.remaining() >= 4 && b.get(p + 3) == 3) {
            rec.queue(PROTOCOL_VERSION_ALERT.clone());
        }
        throw new SSLHandshakeException("TLS handshake with " + peer + " refused: it sent an SSLv2-format ClientHello"
                + " (SSLv2Hello is not enabled)");
    }

    /** A TLS 1.0 record holding a fatal protocol_version alert (RFC 5246, 7.2). */
    private static final byte[] PROTOCOL_VERSION_ALERT = {21, 3, 1, 0, 2, 2, 70};

    /** A server with contexts per host: reads until the ClientHello names one, then makes the engine. */
    private boolean chooseContext() throws IOException {
        for (;;) {
            ByteBuffer b = rec.held();
            if (b != null) {
                checkFirstBytes();
                String name = ClientHelloSni.serverName(b);
                if (name != null) {
                    makeEngine(name.isEmpty() ? null : name);
                    return true;
                }
            }
            int n = rec.readMore(ClientHelloSni.MAX_HELLO);
            if (n < 0) {
                throw new SSLHandshakeException("the peer closed the connection before its ClientHello");
            }
            if (n == 0) {
                waitingForPeer = true;
                return false;
            }
        }
    }

    private void runTasks() {
        List<Runnable> tasks = new ArrayList<>(2);
        for (Runnable t; (t = rec.engine.getDelegatedTask()) != null; ) {
            tasks.add(t);
        }
        taskRunning = true;
        Runnable batch = () -> {
            Throwable failed = null;
            try {
                for (Runnable t : tasks) {
                    t.run();
                }
            } catch (Throwable e) {
                failed = e;
            }
            Throwable f = failed;
            try {
                loop.callSoon(() -> transport.tasksDone(f));
            } catch (RuntimeException closed) {
                // the loop closed meanwhile, and with it this connection
            }
        };
        Executor ex = options.taskExecutor();
        if (ex == null) {
            Thread.ofVirtual().name("tls-task").start(batch);
        } else {
            ex.execute(batch);
        }
    }

    private void finished() {
        done = true;
        cancelTimer();
        info = TlsInfo.of(rec.engine);
        tls13 = "TLSv1.3".equals(info.protocol());
    }

    /** {@code e} as an exception that says with whom, and before or after the handshake. */
    IOException describe(Throwable e) {
        if (e instanceof SSLException s && s.getMessage() != null && s.getMessage().startsWith("TLS ")) {
            return s; // described already
        }
        if (done && e instanceof IOException io && !(e instanceof SSLException)) {
            return io; // a reset after the handshake is a reset, as without TLS
        }
        String host = client ? options.hostFor(peer) : null;
        String who = peer + (host != null && !peer.getHostString().equals(host) ? " (server name " + host + ")" : "");
        String msg = (done ? "TLS connection with " : "TLS handshake with ") + who + " failed: " + e.getMessage();
        SSLException d = done ? new SSLException(msg, e) : new SSLHandshakeException(msg);
        if (!done) {
            d.initCause(e);
        }
        return d;
    }

    private static String printable(ByteBuffer b) {
        StringBuilder s = new StringBuilder();
        for (int i = b.position(); i < b.limit() && s.length() < 40; i++) {
            char c = (char) (b.get(i) & 0xff);
            s.append(c >= 0x20 && c < 0x7f ? c : c == '\r' ? "\\r" : c == '\n' ? "\\n" : String.format("\\x%02x", (int) c));
        }
        return s.toString();
    }
}
