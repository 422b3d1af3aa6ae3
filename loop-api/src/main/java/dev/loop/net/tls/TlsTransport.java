package dev.loop.net.tls;

import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.engine.Engine;
import dev.loop.engine.LoopEvents;
import dev.loop.net.Connection;
import dev.loop.net.TlsInfo;
import dev.loop.net.TlsOptions;
import dev.loop.net.transport.CoalescedReadiness;
import dev.loop.net.transport.LayeredTransport;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/**
 * TLS as an {@link IoTransport} over another (a socket), not thread-safe (loop thread only): the
 * connection above reads and writes plaintext through it exactly as through a socket, so reads,
 * the stream helpers, watermarks, {@code drain()} and timeouts work unchanged (docs/adr/0009-tls.md).
 * The records and buffers are {@link TlsRecords}', the handshake {@link TlsHandshake}'s.
 *
 * <p><b>Readiness.</b> The socket reports to this layer, a {@link CoalescedReadiness} of its own:
 * in its callback it does its own work first (sends ciphertext it holds, moves the handshake on),
 * then passes readiness up at once ({@link CoalescedReadiness#onReadyInCallbackPhase}), so TLS adds no loop
 * iteration per event. Level-triggered as the contract asks: while it holds decrypted bytes or
 * whole records and the connection wants to read, it reports {@code READ} itself; once its
 * ciphertext backlog drains it reports {@code WRITE}.
 *
 * <p><b>Backpressure.</b> A write is taken only while no ciphertext waits for the socket, and then
 * at most one buffer of records ({@link TlsBuffers#SIZE}): everything else stays in the
 * connection's queue, counted against its watermarks, so a slow reader bounds the writer's memory
 * as it does without TLS.
 *
 * <p><b>Phases.</b> {@code TCP}: a client socket still connecting, readiness passed through.
 * {@code PLAIN}: after {@link Connection#startTls}, the bytes queued before the switch still go out
 * as they are ({@link PlainPrefix}). {@code HANDSHAKE}, then {@code OPEN}.
 */
public final class TlsTransport extends LayeredTransport {
    private static final int TCP = 0;
    private static final int PLAIN = 1;
    private static final int HANDSHAKE = 2;
    private static final int OPEN = 3;

    private final NetRegistry net;
    private final TlsRecords rec;
    private final TlsHandshake hs;
    private int phase;
    private PlainPrefix plain;      // PLAIN only

    private IOException failure;
    private Promise<Void> handshaken;
    private boolean outputShut;     // shutdownOutput was called (or close made close_notify)
    private boolean shutdownPending; // the socket's output is shut once the backlog drains
    private boolean closed;

    /**
     * A layer over {@code inner}, which reports here from now on, for {@code up}; {@link TlsStart}
     * says when its handshake begins.
     *
     * @param peer       the IP peer the session is made for (host name checks, SNI, session reuse)
     * @param plainBytes STARTTLS: bytes queued above before the switch, still to go out unencrypted
     */
    TlsTransport(NetRegistry net, IoTransport inner, IoReady up, TlsOptions options, boolean client,
                 InetSocketAddress peer, long plainBytes) {
        super(net.loop, inner, up);
        this.net = net;
        this.rec = new TlsRecords(TlsBuffers.of(net.loop), inner);
        this.hs = new TlsHandshake(this, rec, options, client, peer);
        this.plain = plainBytes > 0 ? new PlainPrefix(plainBytes) : null;
        this.phase = plainBytes > 0 ? PLAIN : HANDSHAKE;
    }

    /** A client socket still connecting: readiness passes through until {@link #finishConnect}. */
    void connecting() {
        phase = TCP;
    }

    /**
     * STARTTLS: the interest the connection had asked of the socket, and the bytes it read past its
     * last plaintext message (the start of the peer's TLS).
     */
    void takeOver(boolean read, boolean write, ByteBuffer readAhead) {
        adoptInterest(read, write);
        if (readAhead != null) {
            rec.prepend(readAhead);
        }
    }

    /** Starts the handshake now, unless a connect or plaintext must go first (then it starts after them). */
    public void begin() {
        if (phase == HANDSHAKE) {
            startHandshake();
        }
        updateInner();
    }

    /** A future done when the first handshake is, failed if it fails or this closes first. */
    public LoopFuture<Void> handshake() {
        if (handshaken == null) {
            handshaken = loop.newPromise();
            if (phase == OPEN) {
                handshaken.complete(null);
            } else if (failure != null || closed) {
                handshaken.fail(failure != null ? failure : new ClosedChannelException());
            }
        }
        return handshaken;
    }

    /** What the handshake agreed on; null before it finished. */
    public TlsInfo info() {
        return hs.info;
    }

    // ------------------------------------------------------------------ readiness

    @Override
    protected void ready(int ops) {
        if (closed) {
            return;
        }
        if (phase == TCP || phase == PLAIN) {
            deliver(ops); // the connection finishes the connect, or flushes what it queued before STARTTLS
            return;
        }
        boolean drained = false;
        if ((ops & (WRITE | ERROR | HANGUP)) != 0 && rec.hasBacklog()) {
            try {
                drained = rec.flush();
                if (drained && shutdownPending) {
                    shutdownPending = false;
                    inner.shutdownOutput();
                }
            } catch (IOException e) {
                fail(e);
            }
        }
        int upOps = 0;
        if (failure == null && (phase == HANDSHAKE || rec.needsService || hs.waitingForPeer && (ops & READ) != 0)
                && advance()) {
            upOps = READ | WRITE; // opened: the connection finishes opening, or goes on with what waited
        }
        if (failure == null && phase == OPEN) {
            upOps |= ops & (READ | ERROR | HANGUP);
            if (drained || (ops & WRITE) != 0 && !rec.hasBacklog()) {
                upOps |= WRITE;
            }
        }
        updateInner();
        deliver(upOps);
    }

    /** Delegated tasks finished (on the loop thread again): the handshake goes on. */
    void tasksDone(Throwable failed) {
        hs.taskRunning = false;
        if (closed || failure != null) {
            return;
        }
        if (failed != null) {
            fail(hs.describe(failed));
            return;
        }
        boolean opened = advance();
        updateInner();
        deliver(opened || phase == OPEN ? READ | WRITE : 0);
    }

    /** Moves the handshake or post-handshake work on; true if the first handshake finished in this call. */
    private boolean advance() {
        boolean wasDone = hs.done;
        try {
            hs.step();
        } catch (IOException e) {
            fail(e);
            return false;
        }
        if (wasDone || !hs.done) {
            return false;
        }
        phase = OPEN;
        handshakeOver(null);
        if (handshaken != null) {
            handshaken.tryComplete(null);
        }
        if (outputShut) {
            outputShut = false; // shutdownOutput came during a STARTTLS handshake: now it can be done
            try {
                shutdownOutput();
            } catch (IOException e) {
                fail(e);
            }
        }
        return true;
    }

    /** Counts the first handshake's end, and records it when a recording wants it. Never throws. */
    private void handshakeOver(IOException failure) {
        net.stats.tlsHandshake(failure == null);
        if (LoopEvents.TLS.on()) {
            LoopEvents.tlsHandshake(net.stats.name(), hs.peer, hs.client, hs.info == null ? null : hs.info.protocol(),
                    hs.info == null ? null : hs.info.cipherSuite(), System.nanoTime() - hs.startedAt,
                    failure == null ? null : failure.getMessage());
        }
    }

    private void startHandshake() {
        phase = HANDSHAKE;
        try {
            hs.start();
        } catch (IOException | RuntimeException e) {
            fail(hs.describe(e));
            return;
        }
        advance();
    }

    /** Asks the socket for what this layer and the connection above need now. */
    private void updateInner() {
        boolean r;
        boolean w;
        if (closed || failure != null) {
            return;
        } else if (phase == TCP || phase == PLAIN) {
            r = false;
            w = wantWrite;
        } else if (phase == HANDSHAKE) {
            r = hs.waitingForPeer && !hs.taskRunning;
            w = rec.hasBacklog();
        } else {
            r = wantRead && !rec.inboundDone || hs.waitingForPeer;
            w = rec.hasBacklog() || wantWrite && !hs.taskRunning;
        }
        innerInterest(r, w);
    }

    /**
     * Fails with {@code e}: every later call throws it, the connection hears {@code ERROR} at its
     * next run, a handshake waited for fails.
     */
    void fail(IOException e) {
        if (failure != null || closed) {
            return;
        }
        failure = e;
        if (hs.started && !hs.done) {
            handshakeOver(e);
        }
        hs.cancelTimer();
        if (handshaken != null) {
            handshaken.tryFail(e);
        }
        innerInterest(false, false);
        up.onReady(ERROR | READ | WRITE);
    }

    // ------------------------------------------------------------------ IoTransport

    @Override
    public boolean finishConnect() throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (phase == TCP) {
            if (!inner.finishConnect()) {
                return false;
            }
            startHandshake();
            updateInner();
            if (failure != null) {
                throw failure;
            }
        }
        return phase == OPEN;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (phase != OPEN) {
            return 0; // STARTTLS: data flows once the handshake is done, which reports READ
        }
        int n = 0;
        try {
            for (;;) {
                n += rec.unwrapInto(dst);
                if (rec.needsService) {
                    advance(); // a key update to answer, a ticket to store
                    if (failure != null || hs.taskRunning || rec.needsService) {
                        break; // failed, or waiting for a task or for the peer
                    }
                } else if (n > 0 || rec.inboundDone || !dst.hasRemaining() || rec.readMore(dst.remaining()) <= 0) {
                    break; // at the end of stream without close_notify too: an end, as the JDK's SSLSocket has it
                }
            }
        } catch (IOException e) {
            fail(hs.describe(e));
        }
        if (failure != null) {
            throw failure;
        }
        updateInner();
        if (wantRead && (holdsReadable() || rec.inboundDone)) {
            up.onReady(READ); // held here (or the end, read with the last bytes): report it, as the socket would
        }
        return n == 0 && rec.inboundDone && !rec.holdsPlaintext() ? -1 : n;
    }

    /** Plaintext, or a whole record, that a read would return now without the socket. */
    private boolean holdsReadable() {
        return rec.holdsPlaintext() || rec.hasRecord() && !rec.needsService && !hs.taskRunning;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (phase == PLAIN) {
            long n = plain.write(inner, srcs, offset, length);
            if (plain.done()) {
                plain = null;
                startHandshake();
                updateInner();
            }
            return n;
        }
        if (phase != OPEN || hs.taskRunning) {
            return 0;
        }
        long taken = 0;
        try {
            if (rec.needsService) {
                advance();
            }
            if (rec.hasBacklog() && !rec.flush()) {
                return 0; // the socket is full: the rest stays queued above, counted by the watermarks
            }
            taken = rec.wrap(srcs, offset, length);
            if (taken == 0 && rec.outboundClosed) {
                throw new IOException("the TLS session with " + hs.peer + " is closed for writing (close_notify)");
            }
            rec.flush();
            if (rec.needsService) {
                advance(); // the engine wants a key update after this much data
            }
        } catch (IOException e) {
            fail(hs.describe(e));
        }
        if (failure != null) {
            throw failure;
        }
        updateInner();
        return taken;
    }

    @Override
    public void shutdownOutput() throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (outputShut) {
            return;
        }
        outputShut = true;
        if (phase != OPEN) {
            return; // STARTTLS: done when the handshake is (advance)
        }
        rec.engine.closeOutbound();
        rec.wrapPending();
        if (rec.flush()) {
            inner.shutdownOutput();
        } else {
            shutdownPending = true;
            updateInner();
        }
    }

    @Override
    public void interest(boolean read, boolean write) {
        wantRead = read;
        wantWrite = write;
        if (read && phase == OPEN && failure == null && (holdsReadable() || rec.inboundDone)) {
            up.onReady(READ); // bytes held here count as readable: level-triggered
        }
        updateInner();
    }

    /**
     * Graceful: close_notify after the records already made, then the socket. If the socket cannot
     * take them now a {@link TlsLinger} sends them in the background, unless the loop is closing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        hs.cancelTimer();
        if (phase == OPEN && failure == null) {
            try {
                if (!outputShut) {
                    outputShut = true;
                    rec.engine.closeOutbound();
                    rec.wrapPending();
                }
                rec.flush();
            } catch (IOException | RuntimeException e) {
                rec.release(); // the peer is gone: nothing more to send
            }
        }
        closed = true;
        if (handshaken != null) {
            handshaken.tryFail(failure != null ? failure : new ClosedChannelException());
        }
        if (rec.hasBacklog() && failure == null && !Engine.of(loop).isClosing()) {
            TlsLinger.start(net, rec, inner);
            return;
        }
        rec.release();
        inner.close();
    }

    @Override
    public void abort() {
        if (closed) {
            return;
        }
        closed = true;
        hs.cancelTimer();
        if (handshaken != null) {
            handshaken.tryFail(new IOException("connection to " + hs.peer + " aborted"));
        }
        rec.release();
        inner.abort();
    }

    @Override
    public String toString() {
        return "TlsTransport[" + inner + (hs.info != null ? ", " + hs.info.protocol() : "") + "]";
    }
}
