package dev.loop.net.tls;

import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The records of one TLS connection between its engine and the socket below, not thread-safe
 * (loop thread only): ciphertext read and not yet decrypted, plaintext decrypted and not yet read,
 * ciphertext made and not yet sent. No policy lives here (the handshake and the readiness are
 * {@link TlsHandshake}'s and {@link TlsTransport}'s): only moving bytes, and the buffers.
 *
 * <p>Each of the three buffers is borrowed from the loop's {@link TlsBuffers} while it holds bytes
 * and given back once empty; between calls each is null or in read mode (its bytes are
 * {@code [position, limit)}). The engine is called with reused one-element arrays, because its
 * single-buffer {@code wrap}/{@code unwrap} allocate one per call.
 */
final class TlsRecords {
    /** Bytes of a record header: type, version, length. */
    static final int HEADER = 5;
    /** The least ciphertext asked of one socket read: about one whole record. */
    static final int MIN_READ = 17 * 1024;
    /** A record length no peer may send (RFC 5246 allows 2^14 + 2048): the engine reports it. */
    private static final int MAX_RECORD = (1 << 14) + 2048;

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final TlsBuffers pool;
    final IoTransport inner;
    SSLEngine engine;                 // null until made (a server choosing its context by SNI)

    private ByteBuffer netIn;         // ciphertext read, not yet unwrapped
    private ByteBuffer appIn;         // plaintext unwrapped, not yet read
    private ByteBuffer netOut;        // ciphertext wrapped, not yet written
    private final ByteBuffer[] one = new ByteBuffer[1];
    private final ByteBuffer[] emptySrc = {EMPTY};

    boolean inboundDone;              // close_notify read, or the socket's end of stream
    boolean outboundClosed;           // wrap answered CLOSED: nothing more can be sent
    boolean needsService;             // the last unwrap or wrap left the engine asking for handshake work
    long consumedIn;                  // ciphertext bytes unwrapped so far (the handshake's progress check)

    TlsRecords(TlsBuffers pool, IoTransport inner) {
        this.pool = pool;
        this.inner = inner;
    }

    // ------------------------------------------------------------------ inbound

    /**
     * Reads ciphertext from the socket after what is held: about {@code want} bytes, at least
     * {@link #MIN_READ}, at most what the buffer has room for.
     *
     * @return the socket read's answer: bytes read, 0 if none now, -1 at end of stream
     */
    int readMore(int want) throws IOException {
        ByteBuffer b = netIn != null ? netIn.compact() : pool.take();
        netIn = b;
        int n = 0;
        try {
            int room = b.remaining();
            if (room > 0) {
                b.limit(b.position() + Math.min(room, Math.max(want, MIN_READ)));
                n = inner.read(b);
            }
        } finally {
            b.flip();
            if (!b.hasRemaining()) {
                netIn = null;
                pool.give(b);
            }
        }
        if (n < 0) {
            inboundDone = true;
        }
        return n;
    }

    /** The ciphertext held, in read mode, or null (not to be kept: the buffer goes back when empty). */
    ByteBuffer held() {
        return netIn;
    }

    /**
     * True if all of the next record is held (or its header is bad, which the engine reports). The
     * length a header declares only decides when to call the engine, never what is allocated: bytes
     * are held in the pool's buffers as they arrive, and a length no peer may send goes to the
     * engine at once, which refuses it with an alert.
     */
    boolean hasRecord() {
        ByteBuffer b = netIn;
        if (b == null || b.remaining() < HEADER) {
            return false;
        }
        int p = b.position();
        if ((b.get(p) & 0x80) != 0) {
            // SSLv2 format (a v2-compatible ClientHello): a two-byte header of 15 bits of length;
            // its version bytes, where a TLS header has its length, would be read as about 770
            int v2 = ((b.get(p) & 0x7f) << 8) | (b.get(p + 1) & 0xff);
            return b.remaining() >= 2 + v2;
        }
        int len = ((b.get(p + 3) & 0xff) << 8) | (b.get(p + 4) & 0xff);
        return len > MAX_RECORD || b.remaining() >= HEADER + len;
    }

    /** True if decrypted bytes wait to be read. */
    boolean holdsPlaintext() {
        return appIn != null;
    }

    /**
     * Moves plaintext into {@code dst}: what is held decrypted first, then record after record
     * decrypted straight into it. Stops when {@code dst} is full, no whole record is held, the peer
     * sent close_notify, or a record left the engine asking for handshake work
     * ({@link #needsService}: a key update, a session ticket, a renegotiation).
     *
     * @return plaintext bytes moved
     */
    int unwrapInto(ByteBuffer dst) throws SSLException {
        int n = 0;
        if (appIn != null) {
            n = move(dst);
            if (appIn != null) {
                return n;
            }
        }
        while (dst.hasRemaining() && !inboundDone && !needsService && hasRecord()) {
            one[0] = dst;
            SSLEngineResult r = engine.unwrap(netIn, one, 0, 1);
            one[0] = null;
            if (r.getStatus() == Status.BUFFER_OVERFLOW) {
                if (n > 0) {
                    break; // the rest of dst is less than the next record: it waits for the next read
                }
                r = unwrapToHeld(); // dst is smaller than one record: decrypt aside, hand over what fits
                if (appIn != null) {
                    n += move(dst);
                }
            } else {
                n += r.bytesProduced();
            }
            consumedIn += r.bytesConsumed();
            note(r);
        }
        releaseEmptyNetIn();
        return n;
    }

    /**
     * Unwraps one record (or handshake message) into the held plaintext, for the handshake: the
     * engine needs somewhere to put application data that arrives with the last handshake flight.
     */
    SSLEngineResult unwrapToHeld() throws SSLException {
        ByteBuffer a = appIn != null ? appIn.compact() : pool.take();
        appIn = a;
        one[0] = a;
        SSLEngineResult r;
        try {
            r = engine.unwrap(netIn != null ? netIn : EMPTY, one, 0, 1);
        } finally {
            one[0] = null;
            a.flip();
            if (!a.hasRemaining()) {
                appIn = null;
                pool.give(a);
            }
            releaseEmptyNetIn();
        }
        consumedIn += r.bytesConsumed();
        note(r);
        return r;
    }

    private int move(ByteBuffer dst) {
        ByteBuffer a = appIn;
        int n = Math.min(a.remaining(), dst.remaining());
        int limit = a.limit();
        a.limit(a.position() + n);
        dst.put(a);
        a.limit(limit);
        if (!a.hasRemaining()) {
            appIn = null;
            pool.give(a);
        }
        return n;
    }

    private void releaseEmptyNetIn() {
        if (netIn != null && !netIn.hasRemaining()) {
            pool.give(netIn);
            netIn = null;
        }
    }

    // ------------------------------------------------------------------ outbound

    /** True while wrapped ciphertext waits for the socket. */
    boolean hasBacklog() {
        return netOut != null;
    }

    /**
     * Writes the ciphertext backlog to the socket, one system call: a socket that takes only part
     * of it is full.
     *
     * @return true if nothing is left
     */
    boolean flush() throws IOException {
        ByteBuffer b = netOut;
        if (b == null) {
            return true;
        }
        inner.write(b);
        if (b.hasRemaining()) {
            return false;
        }
        netOut = null;
        pool.give(b);
        return true;
    }

    /**
     * Wraps plaintext from {@code srcs} into records after the backlog, as many as the buffer has
     * room for whole records, stopping early if the engine asks for handshake work.
     *
     * @return plaintext bytes taken
     */
    long wrap(ByteBuffer[] srcs, int offset, int length) throws SSLException {
        ByteBuffer b = netOut != null ? netOut.compact() : pool.take();
        netOut = b;
        long taken = 0;
        try {
            while (remaining(srcs, offset, length) && !needsService) {
                SSLEngineResult r = engine.wrap(srcs, offset, length, b);
                taken += r.bytesConsumed();
                note(r);
                if (r.getStatus() != Status.OK || r.bytesProduced() == 0) {
                    break; // BUFFER_OVERFLOW: no room for one more record; CLOSED: see outboundClosed
                }
            }
        } finally {
            b.flip();
            if (!b.hasRemaining()) {
                netOut = null;
                pool.give(b);
            }
        }
        return taken;
    }

    /** Wraps one handshake or closing message (no plaintext) after the backlog. */
    SSLEngineResult wrapEmpty() throws SSLException {
        ByteBuffer b = netOut != null ? netOut.compact() : pool.take();
        netOut = b;
        SSLEngineResult r;
        try {
            r = engine.wrap(emptySrc, 0, 1, b);
        } finally {
            b.flip();
            if (!b.hasRemaining()) {
                netOut = null;
                pool.give(b);
            }
        }
        note(r);
        return r;
    }

    /**
     * Wraps whatever the engine still has to send of its own (an alert, close_notify after
     * {@code closeOutbound}), while it fits after the backlog.
     */
    void wrapPending() throws SSLException {
        while (engine != null && engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
            SSLEngineResult r = wrapEmpty();
            if (r.bytesProduced() == 0) {
                return;
            }
        }
    }

    private void note(SSLEngineResult r) {
        if (r.getStatus() == Status.CLOSED) {
            if (r.bytesConsumed() == 0 && r.bytesProduced() == 0 && engine.isOutboundDone()) {
                outboundClosed = true;
            }
            if (engine.isInboundDone()) {
                inboundDone = true;
            }
        }
        HandshakeStatus hs = r.getHandshakeStatus();
        needsService = hs != HandshakeStatus.NOT_HANDSHAKING && hs != HandshakeStatus.FINISHED;
    }

    private static boolean remaining(ByteBuffer[] srcs, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (srcs[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ end

    /** Puts {@code bytes} (read ahead by someone else: STARTTLS) before anything read from the socket. */
    void prepend(ByteBuffer bytes) {
        ByteBuffer b = pool.take();
        if (bytes.remaining() > b.remaining()) {
            b = ByteBuffer.allocate(bytes.remaining()); // more than a pooled buffer: once, at the switch
        }
        netIn = b.put(bytes).flip();
    }

    /** Puts {@code bytes} made by hand (an alert in a format the engine does not speak) after the backlog. */
    void queue(byte[] bytes) {
        ByteBuffer b = netOut != null ? netOut.compact() : pool.take();
        netOut = b.put(bytes).flip();
    }

    /** Gives every buffer back; bytes still held are dropped. */
    void release() {
        pool.give(netIn);
        pool.give(appIn);
        pool.give(netOut);
        netIn = appIn = netOut = null;
    }
}
