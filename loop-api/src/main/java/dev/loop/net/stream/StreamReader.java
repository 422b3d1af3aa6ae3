package dev.loop.net.stream;

import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.LimitExceededException;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The reading half of a {@link StreamConnection}, not thread-safe (loop thread only): the pending
 * pull read, the stream buffer, the read timeout, and push-style delivery to a
 * {@link ConnectionHandler}.
 *
 * <p>Invariant: at most one pull read is pending ({@code kind != NO_READ}, with its promise), or a
 * handler is set, never both. A pending read whose promise is done was cancelled by its caller (a
 * completed or failed read frees the slot first): it is <em>withdrawn</em> wherever the slot is
 * looked at, before any byte is read for it, so the bytes that arrive afterwards stay for the next
 * read. Checking the promise where the slot is used, rather than hooking its cancellation, costs a
 * read nothing extra. The connection asks the transport for read readiness only while
 * one of them wants bytes ({@link #wantsRead}), so a connection nobody reads pushes back on its
 * peer. A pull read is first tried at once on the calling thread's turn, because a ready socket
 * answers without waiting for a poll; only if it would block does it wait for readiness.
 *
 * <p>Push style reads into the loop's one shared scratch buffer, valid during the handler's call
 * only, so idle push-style connections hold no read buffer at all. {@code read} reads straight into
 * the caller's buffer. The stream helpers read into the scratch buffer too and keep what arrived in
 * this connection's {@link StreamBuffer}, which grows with what it holds.
 */
final class StreamReader {
    /** Reads per readiness event at most in push style, so one fast peer cannot starve the rest. */
    static final int MAX_READS_PER_RUN = 16;

    private static final int NO_READ = 0;
    private static final int READ_SOME = 1;
    private static final int READ_EXACTLY = 2;
    private static final int READ_UNTIL = 3;
    private static final int READ_LINE = 4;
    private static final byte[] NEWLINE = {'\n'};

    private final StreamConnection conn; // also its loop and options: one field per connection, not three

    // push style
    private ConnectionHandler handler;
    private boolean paused;

    // the pending pull read: what it is, who waits, and where its bytes go
    private int kind = NO_READ;
    private Promise<Object> promise;
    private ByteBuffer dst;       // READ_SOME: the caller's buffer
    private int limit;            // the stream helpers: n, or maxLength
    private byte[] delimiter;     // READ_UNTIL, READ_LINE
    private TimerHandle timer;
    private Runnable timeoutTask; // made once, reused by every read that waits

    private StreamBuffer in;      // made by the first stream read: push-style connections never need one
    private boolean eof;

    StreamReader(StreamConnection conn) {
        this.conn = conn;
    }

    /** Whether the transport should report read readiness, the connection being open. */
    boolean wantsRead() {
        return !eof && (kind != NO_READ || (handler != null && !paused));
    }

    /** True once end of stream was read. */
    boolean isEof() {
        return eof;
    }

    // ------------------------------------------------------------------ readiness

    /** The transport reported read readiness (or an error, or a hang-up): read what is wanted. */
    void readReady() {
        try {
            if (handler != null) {
                pushReads();
            } else if (withdrawCancelled()) {
                return; // nobody waits: what arrived stays in the kernel for the next read
            } else if (kind == READ_SOME) {
                int n = conn.transport.read(dst);
                if (n != 0) {
                    if (n > 0) {
                        conn.received(n);
                    } else {
                        eof = true;
                    }
                    completeReadSome(n);
                }
            } else if (kind != NO_READ) {
                fillStream();
            }
        } catch (IOException e) {
            conn.closeNow(e);
        }
    }

    private void pushReads() throws IOException {
        for (int i = 0; i < MAX_READS_PER_RUN && handler != null && !paused && conn.isOpen() && !eof; i++) {
            ByteBuffer s = conn.net.scratch(conn.options.readBufferSize());
            int n = conn.transport.read(s);
            if (n == 0) {
                return;
            }
            if (n < 0) {
                eof = true;
                conn.updateInterest();
                ConnectionHandler h = handler;
                try {
                    h.onEof(conn);
                } catch (RuntimeException e) {
                    conn.net.report("exception in onEof of " + h, e, h, conn);
                }
                return;
            }
            conn.received(n);
            s.flip();
            deliver(s);
            if (n < conn.options.readBufferSize()) {
                // most likely empty: do not pay for a read that would block (a transport holding
                // more reports READ again, level-triggered)
                return;
            }
        }
    }

    private void deliver(ByteBuffer data) {
        ConnectionHandler h = handler;
        try {
            h.onData(conn, data);
        } catch (RuntimeException e) {
            conn.net.report("exception in onData of " + h, e, h, conn);
        }
    }

    /**
     * Reads into the stream buffer until the pending stream read completes or would block. Each read
     * goes to the loop's scratch buffer and only what arrived is appended, so the stream buffer
     * holds what the connection holds and not a read's worth of room.
     */
    private void fillStream() throws IOException {
        for (;;) {
            ByteBuffer s = conn.net.scratch(conn.options.readBufferSize());
            int n = conn.transport.read(s);
            if (n == 0) {
                in.trim(); // the read waits: keep no more than what it holds
                return;
            }
            if (n < 0) {
                eof = true;
            } else {
                conn.received(n);
                in.append(s.flip());
            }
            if (tryCompleteStream() || eof) {
                return;
            }
        }
    }

    /** Completes the pending stream read from the buffer if it can; true if it did. */
    private boolean tryCompleteStream() {
        int have = in.size();
        if (kind == READ_EXACTLY) {
            if (have >= limit) {
                ByteBuffer b = in.take(limit);
                completeStream(b, b);
                return true;
            }
            if (eof) {
                failRead(new EOFException("the stream ended after " + have + " of " + limit + " bytes"));
                return true;
            }
            return false;
        }
        int at = in.indexOf(delimiter, Math.min(have, limit));
        if (at >= 0) {
            ByteBuffer b = in.take(at + delimiter.length);
            completeStream(kind == READ_LINE ? line(b, true) : b, b);
            return true;
        }
        if (have >= limit) {
            failRead(new LimitExceededException((kind == READ_LINE ? "line" : "delimiter not found")
                    + " longer than the limit of " + limit + " bytes; the bytes stay buffered", limit));
            return true;
        }
        if (eof) {
            if (kind == READ_LINE) {
                ByteBuffer b = have == 0 ? null : in.take(have);
                completeStream(b == null ? null : line(b, false), b);
            } else {
                failRead(new EOFException("the stream ended before the delimiter; " + have + " bytes buffered"));
            }
            return true;
        }
        return false;
    }

    private int buffered() {
        return in == null ? 0 : in.size();
    }

    /**
     * Hands over the bytes the stream helpers read past the last message, which belong to a layer
     * that starts on this stream now (STARTTLS); null if there are none.
     *
     * @throws IllegalStateException if a read is pending: the switch must fall between two reads
     */
    ByteBuffer takeReadAhead() {
        if (kind != NO_READ) {
            throw new IllegalStateException("a read is pending on " + conn + ": start TLS between reads");
        }
        return buffered() > 0 ? in.takeAll() : null;
    }

    private static String line(ByteBuffer b, boolean terminated) {
        int len = b.remaining();
        if (terminated) {
            len--;
            if (len > 0 && b.get(len - 1) == '\r') {
                len--;
            }
        }
        return new String(b.array(), 0, len, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ pull style

    LoopFuture<Integer> read(ByteBuffer into) {
        Objects.requireNonNull(into, "dst");
        if (!into.hasRemaining() || into.isReadOnly()) {
            // a read that can never take a byte would wait forever, or complete with 0 and spin its caller
            throw new IllegalArgumentException("dst has no room to read into (" + (into.isReadOnly() ? "read-only " : "")
                    + into + "): clear or compact it first");
        }
        Promise<Integer> p = beginRead(READ_SOME);
        if (p.isDone()) {
            return p;
        }
        if (buffered() > 0) {
            return done(p, in.moveTo(into));
        }
        if (eof) {
            return done(p, -1);
        }
        try {
            int n = conn.transport.read(into); // a ready socket answers at once, without waiting for a poll
            if (n != 0) {
                if (n > 0) {
                    conn.received(n);
                } else {
                    eof = true;
                }
                return done(p, n);
            }
        } catch (IOException e) {
            conn.closeNow(e);
            p.tryFail(e);
            return p;
        }
        dst = into;
        return pend(p);
    }

    LoopFuture<ByteBuffer> readExactly(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative: " + n);
        }
        return streamRead(READ_EXACTLY, n, null);
    }

    LoopFuture<ByteBuffer> readUntil(byte[] delim, int maxLength) {
        Objects.requireNonNull(delim, "delimiter");
        if (delim.length == 0 || maxLength < delim.length) {
            throw new IllegalArgumentException("need a delimiter and maxLength >= its length: " + maxLength);
        }
        return streamRead(READ_UNTIL, maxLength, delim.clone());
    }

    LoopFuture<String> readLine(int maxLength) {
        if (maxLength < 1) {
            throw new IllegalArgumentException("maxLength must be at least 1: " + maxLength);
        }
        return streamRead(READ_LINE, maxLength, NEWLINE);
    }

    private <T> LoopFuture<T> streamRead(int k, int max, byte[] delim) {
        Promise<T> p = beginRead(k);
        if (p.isDone()) {
            return p;
        }
        limit = max;
        delimiter = delim;
        try {
            if (in == null) {
                in = new StreamBuffer();
            }
            in.rescan();
            if (tryCompleteStream()) {
                return p;
            }
            fillStream(); // a ready socket answers at once
        } catch (IOException e) {
            conn.closeNow(e);
        } catch (RuntimeException | Error e) {
            if (promise == p) {
                resetRead(); // whatever went wrong, the slot is not left taken by a read nobody can finish
            }
            throw e;
        }
        return p.isDone() ? p : pend(p);
    }

    /**
     * Claims the one pending-read slot for a read of kind {@code k}: every pull read starts here
     * and keeps the slot until {@link #resetRead}.
     */
    @SuppressWarnings("unchecked")
    private <T> Promise<T> beginRead(int k) {
        if (handler != null) {
            throw new IllegalStateException("a handler reads this connection; setHandler(null) first: " + conn);
        }
        if (kind != NO_READ && !withdrawCancelled()) {
            throw new IllegalStateException("a read is already pending on " + conn);
        }
        Promise<T> p = conn.loop.newPromise();
        if (!conn.isOpen()) {
            p.fail(conn.closedCause());
            return p;
        }
        kind = k;
        promise = (Promise<Object>) p;
        return p;
    }

    private <T> Promise<T> done(Promise<T> p, T value) {
        resetRead();
        p.complete(value);
        return p;
    }

    /** The read would block: arm its timeout and ask for readiness. */
    private <T> Promise<T> pend(Promise<T> p) {
        if (!conn.options.readTimeout().isZero()) {
            if (timeoutTask == null) {
                timeoutTask = () -> failRead(new SocketTimeoutException("no data from " + conn.remote + " within "
                        + conn.options.readTimeout().toMillis() + " ms"));
            }
            timer = conn.loop.callLater(conn.options.readTimeout(), timeoutTask);
        }
        conn.updateInterest();
        return p;
    }

    /**
     * Frees the slot if its read was cancelled: the caller no longer waits, and nothing was read for
     * it (every read checks this first).
     *
     * @return true if the slot is free now
     */
    private boolean withdrawCancelled() {
        if (kind == NO_READ) {
            return true;
        }
        if (!promise.isDone()) {
            return false;
        }
        resetRead();
        return true;
    }

    /**
     * Completes the pending {@code read(dst)} with {@code n}. A cancellation from another thread can
     * still win the race after the check; the bytes then go back to the stream buffer (and out of
     * {@code dst}) for the next read.
     */
    private void completeReadSome(int n) {
        Promise<Object> p = promise;
        ByteBuffer d = dst;
        resetRead();
        if (!p.tryComplete(n) && n > 0) {
            d.position(d.position() - n);
            ByteBuffer lost = d.duplicate();
            lost.limit(d.position() + n);
            buffer().unread(lost);
        }
    }

    /** Completes the pending stream read with {@code value} made of {@code bytes}, which go back if it lost a race. */
    private void completeStream(Object value, ByteBuffer bytes) {
        Promise<Object> p = promise;
        resetRead();
        if (!p.tryComplete(value) && bytes != null) {
            in.unread(bytes.rewind());
        }
    }

    private StreamBuffer buffer() {
        if (in == null) {
            in = new StreamBuffer();
        }
        return in;
    }

    /** Fails the pending pull read, if any, with {@code e}; the connection stays as it is. */
    void failRead(Throwable e) {
        Promise<Object> p = promise;
        resetRead();
        if (p != null) {
            p.tryFail(e);
        }
        conn.updateInterest();
    }

    /** Frees the pending-read slot: every pull read ends here, however it ends. */
    private void resetRead() {
        kind = NO_READ;
        promise = null;
        dst = null;
        delimiter = null;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    // ------------------------------------------------------------------ push style

    void setHandler(ConnectionHandler h) {
        if (h != null && !withdrawCancelled()) {
            throw new IllegalStateException("a read is pending on " + conn + ": cannot set a handler");
        }
        handler = h;
        if (h != null && buffered() > 0 && conn.isOpen()) {
            // bytes the stream helpers buffered come first; deliver them as the socket would
            ByteBuffer rest = in.takeAll();
            conn.loop.callSoon(() -> {
                if (handler != null && !conn.isClosed()) {
                    deliver(rest);
                }
            });
        }
        conn.updateInterest();
    }

    void pauseReading() {
        paused = true;
        conn.updateInterest();
    }

    void resumeReading() {
        paused = false;
        conn.updateInterest();
    }

    /** The server that accepted the connection began a graceful shutdown: tells the handler, if any. */
    void serverShuttingDown() {
        ConnectionHandler h = handler;
        if (h != null) {
            try {
                h.onServerShutdown(conn);
            } catch (RuntimeException e) {
                conn.net.report("exception in onServerShutdown of " + h, e, h, conn);
            }
        }
    }

    /**
     * The connection closed (its pending read already failed): drops the buffer and tells the
     * handler.
     *
     * @param error why, or null for a normal close
     */
    void closed(Throwable error) {
        in = null;
        ConnectionHandler h = handler;
        if (h != null) {
            try {
                h.onClosed(conn, error);
            } catch (RuntimeException e) {
                conn.net.report("exception in onClosed of " + h, e, h, conn);
            }
        }
    }
}
