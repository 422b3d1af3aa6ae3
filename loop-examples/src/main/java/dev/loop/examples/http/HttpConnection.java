package dev.loop.examples.http;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.examples.io.InputBuffer;
import dev.loop.examples.io.OutputBuffer;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import java.nio.ByteBuffer;

/**
 * One HTTP/1.1 connection: requests parsed as bytes arrive, answered in order, pipelined ones
 * together in one write. Not thread-safe: runs on the connection's loop.
 *
 * <p>Its phases: reading a request {@code HEAD}, reading its {@code BODY}, {@code WAIT}ing for a
 * response that takes more than one callback (a large or offloaded file), and {@code LINGER}ing
 * after its last response: output shut, input read and dropped until the client closes or
 * {@link HttpLimits#lingerTimeout()} passes, so a client still sending a refused body reads the
 * refusal instead of a reset. Reading stops while a response is in progress and while the
 * client does not read what it was sent (the connection is not writable), so a pipelining client
 * cannot make the server buffer without bound: what it can make us hold is one read of input and
 * {@link #MAX_PENDING_OUTPUT} of answers past the connection's high watermark.
 *
 * <p>Each phase a client controls has its deadline ({@link HttpLimits}): a head must be complete
 * within {@code headTimeout} of its first byte, a body within {@code bodyTimeout} of its head,
 * however the bytes trickle in; between requests, and while the client does not read, the idle
 * timeout counts from the last byte moved. One timer per connection serves them all.
 *
 * <p>Two drivers feed it: push style ({@link ConnectionHandler}, the default) and task style (one
 * task per connection, reading with {@code Async.await(conn.read(buf))}); the parsing and
 * answering are the same.
 */
final class HttpConnection implements ConnectionHandler {
    private static final int HEAD = 0;
    private static final int BODY = 1;
    private static final int WAIT = 2;
    private static final int CLOSING = 3;
    private static final int LINGER = 4;

    /** Bytes read and dropped while lingering before the connection is closed anyway. */
    static final int MAX_LINGER_BYTES = 1024 * 1024;
    /** Answers encoded before they are written and the client's reading is checked. */
    static final int MAX_PENDING_OUTPUT = 256 * 1024;

    private final Connection conn;
    private final Loop loop;
    private final HttpLoopState shared;
    private final HttpLimits limits;
    private final InputBuffer in = new InputBuffer();
    private final HttpParser parser;
    private final HttpRequest req = new HttpRequest();
    private final Routes routes;
    private ChunkedDecoder chunked;
    private OutputBuffer body;      // the request body, for the routes that read it
    private boolean keepBody;
    private long bodyLeft;

    private int phase = HEAD;
    private boolean processing;     // inside process(): callbacks it causes must not re-enter it
    private boolean drainWait;      // the client is not reading: we are not either
    private boolean reading = true;
    private Promise<Void> readGate; // task style: the reading task waits on it while not reading
    private boolean taskStyle;
    private boolean serverStopping; // the server shuts down: no request after the one in progress

    private long lastActivity;
    private long phaseStart;        // when the head in progress began to arrive, or its body began
    private TimerHandle idleTimer;
    private final Runnable idleCheck = this::idleCheck;
    private TimerHandle lingerTimer;
    private long lingered;

    HttpConnection(Connection conn, HttpLoopState shared) {
        this.conn = conn;
        this.loop = conn.loop();
        this.shared = shared;
        this.limits = shared.limits;
        this.parser = new HttpParser(limits);
        this.routes = new Routes(this, shared);
    }

    /** Push style: the connection hands every chunk read to {@link #onData}. */
    void startPush() {
        lastActivity = loop.time();
        idleTimer = loop.callLater(limits.shortestTimeout(), idleCheck);
        conn.setHandler(this);
    }

    /** Task style: one task reads and feeds {@link #onData} until the connection closes. */
    void startTask() {
        taskStyle = true;
        lastActivity = loop.time();
        idleTimer = loop.callLater(limits.shortestTimeout(), idleCheck);
        conn.closeFuture().onDone(f -> onClosed(conn, null));
        loop.spawn(() -> {
            ByteBuffer buf = ByteBuffer.allocate(16 * 1024);
            try {
                while (conn.isOpen()) {
                    if (!reading) {
                        readGate = loop.newPromise();
                        Async.await(readGate);
                        continue;
                    }
                    int n = Async.await(conn.read(buf.clear()));
                    if (n < 0) {
                        onEof(conn);
                        return null;
                    }
                    onData(conn, buf.flip());
                }
            } catch (RuntimeException e) {
                if (conn.isOpen()) {
                    throw e;
                }
                // the read failed because the connection closed: the task's work is over
            }
            return null;
        });
    }

    @Override
    public void onData(Connection c, ByteBuffer data) {
        lastActivity = loop.time();
        if (phase == LINGER) {
            lingered += data.remaining();
            data.position(data.limit());
            if (lingered > MAX_LINGER_BYTES) {
                conn.close();
            }
            return;
        }
        if (phase == HEAD && in.isEmpty()) {
            phaseStart = lastActivity; // a head begins: its deadline counts from here, not from its last byte
        }
        in.append(data);
        if (phase == HEAD || phase == BODY) {
            process();
        }
    }

    @Override
    public void onEof(Connection c) {
        if (phase == WAIT) {
            return; // the response in progress finishes; then the input's end is seen again
        }
        conn.close(); // a request cut short has nobody left to answer
    }

    /**
     * The server shuts down gracefully: a connection between requests closes now, since a client
     * may retry on another connection what it had not sent yet; one in the middle of a request is
     * answered, with {@code Connection: close} where its head is not written yet, then closed.
     */
    @Override
    public void onServerShutdown(Connection c) {
        serverStopping = true;
        req.keepAlive = false;
        if (phase == HEAD && in.isEmpty() && !drainWait && !processing) {
            conn.close();
        }
    }

    @Override
    public void onClosed(Connection c, Throwable error) {
        cancel(idleTimer);
        cancel(lingerTimer);
        in.clear();
        if (readGate != null) {
            readGate.tryComplete(null);
        }
    }

    /** Parses and answers every complete request buffered, then writes the answers at once. */
    private void process() {
        OutputBuffer out = shared.out;
        processing = true;
        try {
            while (phase == HEAD || phase == BODY) {
                if (out.size() >= MAX_PENDING_OUTPUT) {
                    flush(out); // a client pipelining without reading gets no further than this ahead
                    if (drainWait || !conn.isOpen()) {
                        break;
                    }
                }
                if (phase == HEAD && !readHead(out)) {
                    break;
                }
                if (phase == BODY) {
                    if (!readBody()) {
                        break;
                    }
                    routes.respond(out, req, body);
                    if (keepBody && body.size() > 64 * 1024) {
                        body = null; // an idle connection does not keep the largest body it was sent
                    }
                }
            }
        } catch (HttpError e) {
            refuse(out, e);
        } finally {
            processing = false;
        }
        flush(out);
    }

    /** Parses a head if one is complete; answers it at once when it has no body. */
    private boolean readHead(OutputBuffer out) throws HttpError {
        if (in.isEmpty()) {
            return false;
        }
        byte[] b = in.array();
        int at = parser.parseHead(b, in.start(), in.end(), req);
        if (at == HttpParser.NEED_MORE) {
            return false;
        }
        routes.route(b, req);
        in.consumeTo(at);
        if (req.contentLength > limits.maxBody()) {
            throw new HttpError(413, "body of " + req.contentLength + " bytes, the limit is " + limits.maxBody());
        }
        if (!req.hasBody()) {
            routes.respond(out, req, null);
            return true;
        }
        if (req.expectContinue && in.isEmpty()) {
            out.put(Responses.CONTINUE); // flushed when process() runs out of input, before the body comes
        }
        keepBody = routes.wantsBody();
        if (keepBody) {
            if (body == null) {
                body = new OutputBuffer(1024);
            }
            body.reset();
        }
        if (req.chunked) {
            if (chunked == null) {
                chunked = new ChunkedDecoder(limits);
            }
            chunked.reset();
        }
        bodyLeft = req.contentLength;
        phase = BODY;
        phaseStart = loop.time();
        return true;
    }

    /** Takes body bytes from the input; true once the body is complete. */
    private boolean readBody() throws HttpError {
        byte[] b = in.array();
        if (req.chunked) {
            in.consumeTo(chunked.decode(b, in.start(), in.end(), keepBody ? body : null));
            return chunked.isDone();
        }
        int n = (int) Math.min(bodyLeft, in.size());
        if (keepBody) {
            body.put(b, in.start(), n);
        }
        in.consumeTo(in.start() + n);
        bodyLeft -= n;
        return bodyLeft == 0;
    }

    /** Called by the routes once a response is complete (at once, or after a file was sent). */
    void responseDone() {
        phase = req.keepAlive && !serverStopping ? HEAD : CLOSING;
        phaseStart = loop.time(); // the next head, if already buffered, counts from now
        updateReading();
        if (!processing) {
            // a response that finished in a later callback: go on with what is buffered
            if (phase == HEAD) {
                process();
            } else {
                flush(shared.out);
            }
        }
    }

    /** A response continues in later callbacks; stop reading until {@link #responseDone()}. */
    void responsePending() {
        phase = WAIT;
        updateReading();
    }

    /** The response in progress broke after its head was sent: nothing can repair the stream. */
    void responseFailed(Throwable why) {
        loop.callExceptionHandler("response to " + conn.remoteAddress() + " broken", why, conn);
        conn.abort();
    }

    /** Answers a refused request, after whatever answers precede it, and closes. */
    private void refuse(OutputBuffer out, HttpError e) {
        shared.refused.increment();
        Responses.text(out, shared.date, e.status, null, e.getMessage(), req.method != HttpRequest.HEAD, -1);
        phase = CLOSING;
    }

    /** Writes what {@code out} holds in one write; then lingers, or waits for a slow reader. */
    void flush(OutputBuffer out) {
        if (!conn.isOpen()) {
            out.reset(); // closed meanwhile (reset, or the loop closing): nobody to answer
            return;
        }
        if (!out.isEmpty()) {
            out.flushTo(conn);
            lastActivity = loop.time();
        }
        if (phase == CLOSING) {
            linger();
        } else if (!conn.isWritable() && !drainWait && conn.isOpen()) {
            drainWait = true;
            updateReading();
            conn.drain().onDone(f -> {
                drainWait = false;
                updateReading();
                if ((phase == HEAD || phase == BODY) && !in.isEmpty() && !processing) {
                    process();
                }
            });
        }
    }

    /** Output shut after the queue is sent; input read and dropped until the client closes. */
    private void linger() {
        phase = LINGER;
        in.clear();
        conn.shutdownOutput();
        drainWait = false;
        updateReading();
        if (conn.isInputShutdown() || limits.lingerTimeout().isZero()) {
            conn.close();
        } else {
            lingerTimer = loop.callLater(limits.lingerTimeout(), this::lingerOver);
        }
    }

    /** Lingered long enough: close, with a reset if the client never read what it was sent. */
    private void lingerOver() {
        if (conn.queuedBytes() > 0) {
            conn.abort();
        } else {
            conn.close();
        }
    }

    private void updateReading() {
        boolean want = phase == LINGER || (phase != WAIT && !drainWait);
        if (want == reading || !conn.isOpen()) {
            return;
        }
        reading = want;
        if (taskStyle) {
            if (want && readGate != null) {
                Promise<Void> g = readGate;
                readGate = null;
                g.tryComplete(null);
            }
        } else if (want) {
            conn.resumeReading();
        } else {
            conn.pauseReading();
        }
        if (want && phase == HEAD && conn.isInputShutdown() && !processing) {
            conn.close(); // the client ended its input while we were busy answering
        }
    }

    /**
     * Re-armed lazily: requests only stamp times, so the timer costs nothing per request. It looks
     * at least once per {@link HttpLimits#shortestTimeout()}, so a deadline that starts between two
     * looks is still met on time. A client that keeps a phase past its deadline is let go: closed if
     * it was between requests, answered 408 if it was in the middle of one, reset if it stopped
     * reading what it was sent.
     */
    private void idleCheck() {
        if (!conn.isOpen() || phase == LINGER) {
            return;
        }
        long now = loop.time();
        long due;
        String late = null;
        if (drainWait || phase == WAIT) {
            due = lastActivity + limits.idleTimeout().toNanos();
        } else if (phase == BODY) {
            due = phaseStart + limits.bodyTimeout().toNanos();
            late = "request body not received within " + limits.bodyTimeout().toMillis() + " ms";
        } else if (!in.isEmpty()) {
            due = phaseStart + limits.headTimeout().toNanos();
            late = "request head not received within " + limits.headTimeout().toMillis() + " ms";
        } else {
            due = lastActivity + limits.idleTimeout().toNanos();
        }
        if (now - due < 0) {
            long next = now + limits.shortestTimeout().toNanos();
            idleTimer = loop.callAt(due - next < 0 ? due : next, idleCheck);
        } else if (drainWait || phase == WAIT) {
            conn.abort(); // it has not read what it was sent for that long: nothing more would arrive
        } else if (late != null) {
            OutputBuffer out = shared.out;
            refuse(out, new HttpError(408, late));
            flush(out);
        } else {
            conn.close();
        }
    }

    /** Something was sent or received: the idle timeout counts from now. */
    void touch() {
        lastActivity = loop.time();
    }

    Connection connection() {
        return conn;
    }

    private static void cancel(TimerHandle t) {
        if (t != null) {
            t.cancel();
        }
    }

    @Override
    public String toString() {
        String[] names = {"head", "body", "wait", "closing", "linger"};
        return "HttpConnection[" + conn.remoteAddress() + ", " + names[phase] + "]";
    }
}
