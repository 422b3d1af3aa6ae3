package dev.loop.net;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The engine's {@link Connection} on a {@link Transport}. Not thread-safe: loop thread only.
 *
 * <p>The connection is its own readiness receiver and its own callback ({@link CoalescedReadiness}):
 * the poll only records the bits and schedules it once; {@link #ready} (in the callback phase)
 * makes the system calls and completes futures. A read or write on a ready socket therefore
 * allocates nothing but the future the caller asked for.
 */
final class TcpConnection extends CoalescedReadiness implements Connection, NetRegistry.Owned {
    /** Reads per readiness event at most in push style, so one fast peer cannot starve the rest. */
    static final int MAX_READS_PER_RUN = 16;

    private static final int CONNECTING = 0;
    private static final int OPEN = 1;
    private static final int CLOSING = 2; // graceful: flushing the queue, then closing
    private static final int CLOSED = 3;

    private static final int NO_READ = 0;
    private static final int READ_SOME = 1;
    private static final int READ_EXACTLY = 2;
    private static final int READ_UNTIL = 3;
    private static final int READ_LINE = 4;
    private static final byte[] NEWLINE = {'\n'};

    private final NetRegistry net;
    private final SocketOptions options;
    private final TcpServer server;
    private final InetSocketAddress remote;
    private Transport socket;
    private int state;

    // the interest last asked of the socket: only a change is passed on
    private boolean interestRead;
    private boolean interestWrite;

    private Promise<Connection> connecting;
    private TimerHandle connectTimer;

    // reading: one pull operation at a time, or a push handler
    private ConnectionHandler handler;
    private boolean paused;
    private int readKind = NO_READ;
    private Promise<Object> readPromise;
    private ByteBuffer readDst;
    private int readLimit;
    private byte[] delimiter;
    private int scanned;          // bytes of `in` already searched for the delimiter
    private ByteBuffer in;        // stream buffer, write mode: the data is [0, position)
    private boolean eof;
    private TimerHandle readTimer;
    private Runnable readTimeoutTask;

    // writing: copies of what the kernel did not take, and who waits for them
    private final OutboundQueue out;
    private boolean outputShutdownAsked;
    private boolean outputShutdown;
    private Promise<Void> done;   // an already completed future, shared by every immediate write

    private final Promise<Void> closed;
    private Throwable failure;    // why it closed, for operations attempted afterwards
    private long lastActivity;
    private TimerHandle idleTimer;

    TcpConnection(NetRegistry net, SocketOptions options, TcpServer server, InetSocketAddress remote) {
        super(net.loop);
        this.net = net;
        this.options = options;
        this.server = server;
        this.remote = remote;
        this.closed = loop.newPromise();
        this.out = new OutboundQueue(loop, options.lowWatermark(), options.highWatermark());
    }

    // ------------------------------------------------------------------ opening

    /** Starts a client connect; the future completes with this connection. */
    LoopFuture<Connection> connect() {
        connecting = loop.newPromise();
        state = CONNECTING;
        try {
            socket = SocketTransport.connect(net.io, remote, options.kernelOptions(), this);
        } catch (IOException e) {
            state = CLOSED;
            closed.tryComplete(null);
            connecting.fail(describe(e));
            return connecting;
        }
        net.add(this);
        setInterest(false, true);
        if (!options.connectTimeout().isZero()) {
            connectTimer = loop.callLater(options.connectTimeout(), () -> {
                if (state == CONNECTING) {
                    closeNow(new SocketTimeoutException("connect to " + remote + " timed out after "
                            + options.connectTimeout().toMillis() + " ms"));
                }
            });
        }
        return connecting;
    }

    /** Adopts a transport over a socket the server accepted. */
    void accepted(Transport s) {
        socket = s;
        s.attach(this);
        state = OPEN;
        net.add(this);
        startIdleTimer();
    }

    private IOException describe(IOException e) {
        if (e instanceof ConnectException && !String.valueOf(e.getMessage()).contains(remote.toString())) {
            ConnectException named = new ConnectException(e.getMessage() + ": " + remote);
            named.initCause(e);
            return named;
        }
        return e;
    }

    // ------------------------------------------------------------------ readiness

    @Override
    void ready(int ops) {
        if (state == CLOSED) {
            return;
        }
        if (state == CONNECTING) {
            finishConnect();
            return;
        }
        if ((ops & (WRITE | ERROR | HANGUP)) != 0 && !out.isEmpty()) {
            flush();
        }
        if ((ops & (READ | ERROR | HANGUP)) != 0) {
            readReady();
        }
        updateInterest();
    }

    private void finishConnect() {
        try {
            if (!socket.finishConnect()) {
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

    private void updateInterest() {
        if (state == CLOSED) {
            return;
        }
        boolean r = state == OPEN && !eof && (readKind != NO_READ || (handler != null && !paused));
        boolean w = state == CONNECTING || !out.isEmpty();
        setInterest(r, w);
    }

    private void setInterest(boolean r, boolean w) {
        if (r != interestRead || w != interestWrite) {
            interestRead = r;
            interestWrite = w;
            socket.interest(r, w);
        }
    }

    // ------------------------------------------------------------------ reading

    private void readReady() {
        try {
            if (handler != null) {
                pushReads();
            } else if (readKind == READ_SOME) {
                int n = socket.read(readDst);
                if (n != 0) {
                    if (n > 0) {
                        touch();
                    } else {
                        eof = true;
                    }
                    completeRead(n);
                }
            } else if (readKind != NO_READ) {
                fillStream();
            }
        } catch (IOException e) {
            closeNow(e);
        }
    }

    private void pushReads() throws IOException {
        for (int i = 0; i < MAX_READS_PER_RUN && handler != null && !paused && state == OPEN && !eof; i++) {
            ByteBuffer s = net.scratch(options.readBufferSize());
            int n = socket.read(s);
            if (n == 0) {
                return;
            }
            if (n < 0) {
                eof = true;
                updateInterest();
                ConnectionHandler h = handler;
                try {
                    h.onEof(this);
                } catch (RuntimeException e) {
                    loop.callExceptionHandler("exception in onEof of " + h, e, h);
                }
                return;
            }
            touch();
            s.flip();
            deliver(s);
            if (n < options.readBufferSize()) {
                return; // the socket is most likely empty: do not pay for a read that would block
            }
        }
    }

    private void deliver(ByteBuffer data) {
        ConnectionHandler h = handler;
        try {
            h.onData(this, data);
        } catch (RuntimeException e) {
            loop.callExceptionHandler("exception in onData of " + h, e, h);
        }
    }

    private void fillStream() throws IOException {
        for (;;) {
            ensureRoom();
            int n = socket.read(in);
            if (n == 0) {
                return;
            }
            if (n < 0) {
                eof = true;
            } else {
                touch();
            }
            if (tryCompleteStream() || eof) {
                return;
            }
        }
    }

    /**
     * Makes room in {@code in} for the pending stream read: it starts at a read's worth and doubles
     * up to the read's limit (n for readExactly, maxLength for the delimiter reads), never beyond.
     */
    private void ensureRoom() {
        int target = Math.max(readLimit, 1);
        if (in == null) {
            in = ByteBuffer.allocate(Math.min(target, options.readBufferSize()));
        } else if (!in.hasRemaining()) {
            // full and not complete means below the limit (tryCompleteStream ran on these bytes)
            int grown = Math.max(in.capacity() + 1, (int) Math.min(target, in.capacity() * 2L));
            ByteBuffer bigger = ByteBuffer.allocate(grown);
            in.flip();
            bigger.put(in);
            in = bigger;
        }
    }

    private int buffered() {
        return in == null ? 0 : in.position();
    }

    /** Completes the pending stream read from {@code in} if it can; true if it did. */
    private boolean tryCompleteStream() {
        int have = buffered();
        if (readKind == READ_EXACTLY) {
            if (have >= readLimit) {
                completeRead(take(readLimit));
                return true;
            }
            if (eof) {
                failRead(new EOFException("the stream ended after " + have + " of " + readLimit + " bytes"));
                return true;
            }
            return false;
        }
        int at = indexOf(delimiter, Math.min(have, readLimit));
        if (at >= 0) {
            ByteBuffer b = take(at + delimiter.length);
            completeRead(readKind == READ_LINE ? line(b, true) : b);
            return true;
        }
        scanned = Math.max(0, Math.min(have, readLimit) - delimiter.length + 1);
        if (have >= readLimit) {
            failRead(new LimitExceededException((readKind == READ_LINE ? "line" : "delimiter not found")
                    + " longer than the limit of " + readLimit + " bytes; the bytes stay buffered", readLimit));
            return true;
        }
        if (eof) {
            if (readKind == READ_LINE) {
                completeRead(have == 0 ? null : line(take(have), false));
            } else {
                failRead(new EOFException("the stream ended before the delimiter; " + have + " bytes buffered"));
            }
            return true;
        }
        return false;
    }

    private int indexOf(byte[] d, int end) {
        outer:
        for (int i = scanned; i + d.length <= end; i++) {
            for (int j = 0; j < d.length; j++) {
                if (in.get(i + j) != d[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** Removes the first {@code n} buffered bytes into a buffer of their own. */
    private ByteBuffer take(int n) {
        ByteBuffer b = ByteBuffer.allocate(n);
        in.flip();
        int limit = in.limit();
        in.limit(n);
        b.put(in).flip();
        in.limit(limit);
        in.compact();
        scanned = 0;
        return b;
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

    @Override
    public LoopFuture<Integer> read(ByteBuffer dst) {
        Objects.requireNonNull(dst, "dst");
        Promise<Integer> p = beginRead(READ_SOME);
        if (p.isDone()) {
            return p;
        }
        if (buffered() > 0) {
            in.flip();
            int n = Math.min(in.remaining(), dst.remaining());
            int limit = in.limit();
            in.limit(in.position() + n);
            dst.put(in);
            in.limit(limit);
            in.compact();
            return done(p, n);
        }
        if (eof) {
            return done(p, -1);
        }
        try {
            int n = socket.read(dst); // a ready socket answers at once, without waiting for a poll
            if (n != 0) {
                if (n > 0) {
                    touch();
                } else {
                    eof = true;
                }
                return done(p, n);
            }
        } catch (IOException e) {
            closeNow(e);
            p.tryFail(e);
            return p;
        }
        readDst = dst;
        return pend(p);
    }

    @Override
    public LoopFuture<ByteBuffer> readExactly(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative: " + n);
        }
        return streamRead(READ_EXACTLY, n, null);
    }

    @Override
    public LoopFuture<ByteBuffer> readUntil(byte[] delim, int maxLength) {
        if (delim.length == 0 || maxLength < delim.length) {
            throw new IllegalArgumentException("need a delimiter and maxLength >= its length: " + maxLength);
        }
        return streamRead(READ_UNTIL, maxLength, delim.clone());
    }

    @Override
    public LoopFuture<String> readLine(int maxLength) {
        if (maxLength < 1) {
            throw new IllegalArgumentException("maxLength must be at least 1: " + maxLength);
        }
        return streamRead(READ_LINE, maxLength, NEWLINE);
    }

    private <T> LoopFuture<T> streamRead(int kind, int limit, byte[] delim) {
        Promise<T> p = beginRead(kind);
        if (p.isDone()) {
            return p;
        }
        readLimit = limit;
        delimiter = delim;
        scanned = 0;
        if (tryCompleteStream()) {
            return p;
        }
        try {
            fillStream(); // a ready socket answers at once
        } catch (IOException e) {
            closeNow(e);
        }
        return p.isDone() ? p : pend(p);
    }

    @SuppressWarnings("unchecked")
    private <T> Promise<T> beginRead(int kind) {
        if (handler != null) {
            throw new IllegalStateException("a handler reads this connection; setHandler(null) first: " + this);
        }
        if (readKind != NO_READ) {
            throw new IllegalStateException("a read is already pending on " + this);
        }
        Promise<T> p = loop.newPromise();
        if (state != OPEN) {
            p.fail(state == CLOSED && failure != null ? failure : new ClosedChannelException());
            return p;
        }
        readKind = kind;
        readPromise = (Promise<Object>) p;
        return p;
    }

    private <T> Promise<T> done(Promise<T> p, T value) {
        resetRead();
        p.complete(value);
        return p;
    }

    private <T> Promise<T> pend(Promise<T> p) {
        if (!options.readTimeout().isZero()) {
            if (readTimeoutTask == null) {
                readTimeoutTask = () -> failRead(new SocketTimeoutException("no data from " + remote + " within "
                        + options.readTimeout().toMillis() + " ms"));
            }
            readTimer = loop.callLater(options.readTimeout(), readTimeoutTask);
        }
        updateInterest();
        return p;
    }

    private void completeRead(Object value) {
        Promise<Object> p = readPromise;
        resetRead();
        if (p != null) {
            p.tryComplete(value);
        }
    }

    private void failRead(Throwable e) {
        Promise<Object> p = readPromise;
        resetRead();
        if (p != null) {
            p.tryFail(e);
        }
        updateInterest();
    }

    private void resetRead() {
        readKind = NO_READ;
        readPromise = null;
        readDst = null;
        delimiter = null;
        if (readTimer != null) {
            readTimer.cancel();
            readTimer = null;
        }
    }

    @Override
    public void setHandler(ConnectionHandler h) {
        if (h != null && readKind != NO_READ) {
            throw new IllegalStateException("a read is pending on " + this + ": cannot set a handler");
        }
        handler = h;
        if (h != null && buffered() > 0 && state == OPEN) {
            // bytes the stream helpers buffered come first; deliver them as the socket would
            in.flip();
            ByteBuffer rest = ByteBuffer.allocate(in.remaining()).put(in).flip();
            in.clear();
            loop.callSoon(() -> {
                if (handler != null && state != CLOSED) {
                    deliver(rest);
                }
            });
        }
        if (state != CLOSED) {
            updateInterest();
        }
    }

    @Override
    public void pauseReading() {
        paused = true;
        if (state != CLOSED) {
            updateInterest();
        }
    }

    @Override
    public void resumeReading() {
        paused = false;
        if (state != CLOSED) {
            updateInterest();
        }
    }

    // ------------------------------------------------------------------ writing

    @Override
    public LoopFuture<Void> write(ByteBuffer src) {
        if (state != OPEN || outputShutdownAsked) {
            Promise<Void> p = loop.newPromise();
            p.fail(state == CLOSED && failure != null ? failure
                    : new ClosedChannelException());
            return p;
        }
        if (!src.hasRemaining()) {
            return done();
        }
        if (out.isEmpty()) {
            try {
                if (socket.write(src) > 0) {
                    touch();
                }
            } catch (IOException e) {
                closeNow(e);
                Promise<Void> p = loop.newPromise();
                p.fail(e);
                return p;
            }
            if (!src.hasRemaining()) {
                return done();
            }
        }
        Promise<Void> p = out.add(src);
        updateInterest();
        return p;
    }

    private Promise<Void> done() {
        Promise<Void> d = done;
        if (d == null) {
            d = done = loop.newPromise();
            d.complete(null);
        }
        return d;
    }

    private void flush() {
        try {
            if (out.flushTo(socket) > 0) {
                touch();
            }
        } catch (IOException e) {
            closeNow(e);
            return;
        }
        if (out.isEmpty()) {
            afterFlush();
        }
    }

    /** The queue is empty: carry out a half-close or a graceful close that waited for it. */
    private void afterFlush() {
        if (outputShutdownAsked && !outputShutdown) {
            outputShutdown = true;
            try {
                socket.shutdownOutput();
            } catch (IOException e) {
                closeNow(e);
                return;
            }
        }
        if (state == CLOSING) {
            closeNow(null);
        }
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
            Promise<Void> p = loop.newPromise();
            p.fail(failure != null ? failure : new ClosedChannelException());
            return p;
        }
        Promise<Void> d = out.drain();
        return d != null ? d : done();
    }

    @Override
    public void shutdownOutput() {
        if (state != OPEN || outputShutdownAsked) {
            return;
        }
        outputShutdownAsked = true;
        if (out.isEmpty()) {
            afterFlush();
        }
    }

    // ------------------------------------------------------------------ closing

    @Override
    public LoopFuture<Void> close() {
        if (state == CONNECTING) {
            closeNow(new ClosedChannelException());
        } else if (state == OPEN) {
            state = CLOSING;
            failRead(new ClosedChannelException());
            if (out.isEmpty()) {
                closeNow(null);
            } else {
                updateInterest();
            }
        }
        return closed;
    }

    @Override
    public void abort() {
        if (state == CLOSED) {
            return;
        }
        socket.abort();
        closeNow(new IOException("connection to " + remote + " aborted"), false);
    }

    @Override
    public void loopClosing(IOException why) {
        closeNow(why);
    }

    private void closeNow(IOException error) {
        closeNow(error, true);
    }

    /**
     * Closes the socket at once and fails everything pending with {@code error} (null: a normal
     * close, pending operations fail with {@link ClosedChannelException}).
     */
    private void closeNow(IOException error, boolean closeSocket) {
        if (state == CLOSED) {
            return;
        }
        state = CLOSED;
        failure = error;
        if (closeSocket && socket != null) {
            socket.close();
        }
        net.remove(this);
        if (server != null) {
            server.removed(this);
        }
        cancel(connectTimer);
        cancel(idleTimer);
        Throwable why = error != null ? error : new ClosedChannelException();
        if (connecting != null) {
            connecting.tryFail(why);
            connecting = null;
        }
        failRead(why);
        out.fail(why);
        in = null;
        ConnectionHandler h = handler;
        if (h != null) {
            try {
                h.onClosed(this, error);
            } catch (RuntimeException e) {
                loop.callExceptionHandler("exception in onClosed of " + h, e, h);
            }
        }
        closed.tryComplete(null);
    }

    private static void cancel(TimerHandle t) {
        if (t != null) {
            t.cancel();
        }
    }

    // ------------------------------------------------------------------ idle timeout

    private void touch() {
        if (idleTimer != null) {
            lastActivity = loop.time();
        }
    }

    private void startIdleTimer() {
        if (!options.idleTimeout().isZero()) {
            lastActivity = loop.time();
            idleTimer = loop.callLater(options.idleTimeout(), this::idleCheck);
        }
    }

    /** Re-armed lazily: activity only stamps a time, so the timer costs nothing per read or write. */
    private void idleCheck() {
        if (state == CLOSED) {
            return;
        }
        long idleNanos = options.idleTimeout().toNanos();
        long due = lastActivity + idleNanos;
        if (loop.time() - due >= 0) {
            IOException e = new SocketTimeoutException("connection to " + remote + " idle for "
                    + options.idleTimeout().toMillis() + " ms");
            socket.abort();
            closeNow(e, false);
        } else {
            idleTimer = loop.callAt(due, this::idleCheck);
        }
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
    public boolean isInputShutdown() {
        return eof;
    }

    @Override
    public InetSocketAddress localAddress() {
        return socket == null ? null : socket.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public SocketOptions options() {
        return options;
    }

    @Override
    public String toString() {
        String[] names = {"connecting", "open", "closing", "closed"};
        return "Connection[" + remote + ", " + names[state] + (out.queued() > 0 ? ", " + out.queued() + " B queued" : "") + "]";
    }
}
