package dev.loop.examples.resp;

import dev.loop.Loop;
import dev.loop.TimerHandle;
import dev.loop.examples.io.InputBuffer;
import dev.loop.examples.io.OutputBuffer;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One client: commands parsed as bytes arrive, run in order, the replies to each batch written at
 * once. Not thread-safe: runs on its connection's loop (its home), except that a batch it hands
 * to the data loop is run there while the home side waits for it.
 *
 * <p>The keyspace lives on one loop, the data loop. A client of that loop runs its commands in
 * place. A client of another loop of the group parses there, then hands the whole batch of
 * pipelined commands to the data loop in one {@code execute}; the data loop runs them and encodes
 * the replies into this connection's own buffer, and hands it back in one {@code execute}. One
 * batch at a time per client, so the order of replies is the order of commands and the two loops
 * never touch the batch or the buffer at the same time: each hand-off goes through the target
 * loop's inbox, which orders everything before it. Meanwhile the home loop goes on reading, but
 * only into {@code in}, up to {@link #INPUT_AHEAD} bytes: nothing is parsed until the batch is
 * back (the parser reuses the argument arrays of the batch away), and the socket's readiness
 * interest stays as it is, where pausing and resuming would cost two {@code epoll_ctl} a batch.
 * A client that sends commands and then closes while its batch is away has every complete one
 * answered before the connection closes; a partial command at the end is dropped, as
 * redis-server drops it.
 *
 * <p>A client that pipelines commands but does not read the replies is not answered further than
 * {@link #MAX_REPLY_BYTES} past the connection's high watermark: the batch stops there, reading
 * stops, and both go on once the queue has drained. What it can make the server hold is one such
 * slice of replies (or one reply, if a single value is larger) and one read of input.
 *
 * <p>A command that blocks ({@code BLPOP}, {@code BRPOP}, {@code BLMOVE}: see {@link Blocking})
 * parks the batch on the data loop: the replies before it are written (on the data loop's own
 * clients; a client of another loop has them with the blocked command's reply), the loop goes on
 * serving everyone else, and when the command is answered (served, timed out) the rest of the
 * batch runs. Meanwhile the connection goes on reading, up to {@link #INPUT_AHEAD} bytes, so
 * that a client that goes away is seen and unblocked: a blocked client that closes is closed at
 * once, the commands it sent after the blocking one unanswered, as Redis takes it.
 *
 * <p>After {@code QUIT} or a protocol error the connection stops sending, then reads and drops
 * until the client closes or {@link #LINGER} passes, so the client reads the last reply rather
 * than a reset for the bytes it was still sending.
 *
 * <p>Pub/sub messages for this client are published on the data loop and delivered here through
 * the home loop's {@code execute}, the same queue its batches' replies come back through, so a
 * message comes after the replies to the commands run before its PUBLISH. What a subscriber that
 * does not read can make the server hold is bounded as Redis bounds it
 * ({@link ServerState.PushLimit}): the messages on their way count with the bytes queued on the
 * socket, and past the hard limit, or above the soft one for too long, the client is disconnected
 * and counted, never logged.
 */
final class RespConnection implements ConnectionHandler, Session.Subscriber {
    /** Commands run per batch at most: bounds the replies buffered before one write. */
    static final int MAX_BATCH = 1024;
    static final Duration LINGER = Duration.ofSeconds(2);
    /** Replies encoded before the batch stops to write them and see whether the client reads. */
    static final int MAX_REPLY_BYTES = 256 * 1024;
    /**
     * Input buffered unparsed while a batch is away on the data loop or parked there, before
     * reading stops until the batch is back: what a client pipelining ahead makes the server hold.
     */
    static final int INPUT_AHEAD = 64 * 1024;

    /**
     * The loop holding the keyspace, what runs commands on it, and the count of connections closed
     * for a protocol error (counted, not logged: a client that sends garbage on a thousand
     * connections costs a number, not a thousand log lines), and the last client id given out.
     */
    record Data(Loop loop, Commands commands, LongAdder protocolErrors, AtomicLong clientIds) {
    }

    private final Connection conn;
    private final Loop home;
    private final Data data;
    private final OutputBuffer loopOut; // the home loop's shared buffer, for batches run in place
    private final InputBuffer in = new InputBuffer();
    private final RespParser parser;
    private final Session session;
    private final List<byte[][]> batch = new ArrayList<>();
    private int batchPos;               // the batch's next command to run
    private ProtocolError error;        // found after the batch's commands: replied to last
    private OutputBuffer replies;       // this client's own, for batches run on the data loop

    private boolean away;               // a batch is on the data loop
    private boolean parked;             // the batch waits in a blocking command (data loop's side)
    private boolean parkedHome;         // the same, as the home loop knows it
    private volatile boolean gone;      // closed: a parked batch is not resumed
    private boolean drainWait;          // the client is not reading its replies
    private boolean reading = true;
    private boolean closing;
    private boolean eof;
    private boolean stopping;           // the server shuts down: closed once the batch is answered
    private TimerHandle lingerTimer;

    // pushed messages: what is on its way to the home loop (written on both loops), the bytes
    // queued on the socket as of the last delivery, whether the subscriber was dropped
    private final AtomicLong pushPending = new AtomicLong();
    private volatile long pushQueued;
    private final java.util.concurrent.atomic.AtomicBoolean pushDropped = new java.util.concurrent.atomic.AtomicBoolean();
    private long softSince;             // home loop time since the queue is above the soft limit, or 0

    RespConnection(Connection conn, Data data, OutputBuffer loopOut, RespParser parser) {
        this.conn = conn;
        this.home = conn.loop();
        this.data = data;
        this.loopOut = loopOut;
        this.parser = parser;
        ServerState state = data.commands().server();
        this.session = new Session(data.clientIds().incrementAndGet(), this, address(conn.remoteAddress()),
                address(conn.localAddress()));
        session.authenticated = !state.authRequired();
        state.clients().put(session.id, session);
        state.connectionsReceived().increment();
    }

    private static String address(java.net.InetSocketAddress a) {
        return a == null ? "?:0" : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    void start() {
        conn.setHandler(this);
    }

    @Override
    public void onData(Connection c, ByteBuffer bytes) {
        if (closing) {
            bytes.position(bytes.limit()); // lingering: read and dropped
            return;
        }
        in.append(bytes);
        if (away || parkedHome) {
            updateReading(); // buffered until the batch is back, up to INPUT_AHEAD
            return;
        }
        process();
    }

    @Override
    public void onEof(Connection c) {
        eof = true;
        if (parkedHome || closing) {
            // a blocked client that stops sending has gone, as Redis takes it; a lingering one is done
            conn.close();
            return;
        }
        process(); // closes once every complete command buffered is answered: now, if none is left
    }

    /**
     * The server shuts down gracefully: reading stops, and a client is closed once every complete
     * command it had sent is answered (now, if it is between batches), a blocked one at once, as
     * redis-server's shutdown closes its clients.
     */
    @Override
    public void onServerShutdown(Connection c) {
        stopping = true;
        if (parkedHome || closing) {
            conn.close();
            return;
        }
        updateReading();
        process();
    }

    @Override
    public void onClosed(Connection c, Throwable why) {
        if (lingerTimer != null) {
            lingerTimer.cancel();
        }
        gone = true; // before the unblock is posted: park() reads it, so one of the two cancels
        if (parkedHome || away) {
            Runnable unblock = () -> data.commands().blocking().cancel(session);
            if (data.loop() == home) {
                unblock.run();
            } else {
                try {
                    data.loop().execute(unblock);
                } catch (RejectedExecutionException dataClosed) {
                    // the server is shutting down: nobody is blocked any more
                }
            }
        }
        in.clear();
        pushDropped.set(true);
        data.commands().server().clients().remove(session.id);
        // subscriptions and watches live on the data loop: forgotten there, after any batch of
        // ours, and never from inside a PUBLISH that is walking the subscribers (a write that fails
        // there may close this connection): so always as a task of its own
        try {
            data.loop().execute(() -> data.commands().disconnected(session));
        } catch (RejectedExecutionException dataClosed) {
            // the server is shutting down: nothing left to forget them in
        }
    }

    /** On the data loop: hands a message to the home loop, unless this subscriber is over its limit. */
    @Override
    public boolean push(byte[] message) {
        if (pushDropped.get()) {
            return false;
        }
        long pending = pushPending.addAndGet(message.length);
        if (pending + pushQueued > data.commands().server().pushLimit().hard()) {
            dropSubscriber();
            return false;
        }
        if (home == data.loop()) {
            deliver(message);
            return true;
        }
        try {
            home.execute(() -> deliver(message));
            return true;
        } catch (RejectedExecutionException homeClosed) {
            pushDropped.set(true);
            return false;
        }
    }

    /** On the home loop: writes a message, then checks what the socket holds against the limits. */
    private void deliver(byte[] message) {
        pushPending.addAndGet(-message.length);
        if (pushDropped.get() || closing || !conn.isOpen()) {
            return;
        }
        conn.write(message);
        long queued = conn.queuedBytes();
        pushQueued = queued;
        ServerState.PushLimit limit = data.commands().server().pushLimit();
        if (queued > limit.hard()) {
            dropSubscriber();
        } else if (queued > limit.soft()) {
            long now = home.time();
            if (softSince == 0) {
                softSince = now | 1;
            } else if (now - softSince >= limit.softNanos()) {
                dropSubscriber();
            }
        } else {
            softSince = 0;
        }
    }

    /** Disconnects a subscriber that does not read its messages; counted once. On either loop. */
    private void dropSubscriber() {
        if (!pushDropped.compareAndSet(false, true)) {
            return;
        }
        data.commands().server().outputLimitDisconnections().increment();
        try {
            home.execute(conn::abort); // a task of its own: this may run inside a PUBLISH's walk
        } catch (RejectedExecutionException homeClosed) {
            // closed already
        }
    }

    /** Runs the complete commands buffered, a batch at a time, until input, or the client's reading, runs out. */
    private void process() {
        while (!closing && !away && !drainWait && !parkedHome && conn.isOpen()) {
            if (batch.isEmpty()) {
                parseBatch();
                if (batch.isEmpty() && error == null) {
                    if (eof || stopping) {
                        conn.close(); // all answered; a partial command left at the end is dropped
                    }
                    return;
                }
            }
            if (data.loop() == home) {
                finish(loopOut, run(loopOut));
            } else {
                handOff();
                return;
            }
        }
    }

    private void parseBatch() {
        batch.clear();
        parser.newBatch(); // nothing holds the last batch's commands now: the parser may reuse their arrays
        try {
            while (batch.size() < MAX_BATCH) {
                byte[][] argv = parser.next(in);
                if (argv == null) {
                    return;
                }
                if (argv.length > 0) {
                    batch.add(argv);
                }
            }
        } catch (ProtocolError e) {
            error = e;
            data.protocolErrors().increment();
            in.clear();
        }
    }

    /**
     * Runs the batch on the data loop's thread, up to {@link #MAX_REPLY_BYTES} of replies; true if
     * the connection closes after its replies.
     */
    private boolean run(OutputBuffer out) {
        int start = out.size();
        while (batchPos < batch.size()) {
            if (data.commands().execute(batch.get(batchPos++), session, out)) {
                batchPos = batch.size();
                error = null;
                return true; // QUIT: the commands after it are not run
            }
            if (session.blocked != null) {
                park(session.blocked);
                return false;
            }
            if (out.size() - start >= MAX_REPLY_BYTES && batchPos < batch.size()) {
                return false; // the rest once these are written and the client is reading
            }
        }
        if (error != null) {
            session.reply.to(out).error(error.reply());
            return true;
        }
        return false;
    }

    private void handOff() {
        away = true;
        updateReading();
        if (replies == null) {
            replies = new OutputBuffer(4096);
        }
        try {
            data.loop().execute(() -> {
                boolean close = run(replies);
                if (!parked) {
                    handBack(close);
                }
            });
        } catch (RejectedExecutionException dataClosed) {
            conn.abort(); // the server is shutting down: no keyspace to run the commands on
        }
    }

    /** On the data loop: gives the batch's replies back to the home loop. */
    private void handBack(boolean close) {
        try {
            home.execute(() -> {
                away = false;
                parkedHome = false;
                if (conn.isOpen()) {
                    finish(replies, close);
                    process();
                }
                updateReading(); // after the next batch is handed off, if one was: no resume-then-pause
            });
        } catch (RejectedExecutionException homeClosed) {
            // the home loop closed, and with it this connection
        }
    }

    /**
     * On the data loop: the command just run blocked. The batch waits; the blocked command's
     * reply will be written into this client's own buffer, and the rest of the batch then runs.
     */
    private void park(Blocking.Waiter w) {
        parked = true;
        if (replies == null) {
            replies = new OutputBuffer(4096);
        }
        if (data.loop() == home) {
            parkedHome = true;
        } else {
            try {
                home.execute(() -> {
                    if (away) {
                        parkedHome = true;
                        if (eof || stopping) {
                            conn.close(); // the client went, or the server stops, while the batch ran
                        } else {
                            updateReading();
                        }
                    }
                });
            } catch (RejectedExecutionException homeClosed) {
                // the connection is gone with its loop; the waiter is forgotten with the keyspace
            }
        }
        if (gone) {
            data.commands().blocking().cancel(session); // closed while the batch ran here
            return;
        }
        w.attach(replies, () -> {
            parked = false;
            if (gone) {
                replies.reset();
                return;
            }
            if (data.loop() == home) {
                parkedHome = false;
                updateReading();
                finish(replies, run(replies));
                process();
            } else {
                boolean close = run(replies);
                if (!parked) {
                    handBack(close);
                }
            }
        });
    }

    /** Writes a batch's replies in one write, then closes, waits for a slow reader, or goes on. */
    private void finish(OutputBuffer out, boolean close) {
        if (batchPos >= batch.size() && !parked) {
            batch.clear();
            batchPos = 0;
            error = null;
        }
        if (!conn.isOpen()) {
            out.reset();
            return;
        }
        if (!out.isEmpty()) {
            out.flushTo(conn);
        }
        if (close) {
            linger();
        } else if (!conn.isWritable()) {
            drainWait = true;
            updateReading();
            conn.drain().onDone(f -> {
                drainWait = false;
                updateReading();
                process();
            });
        }
    }

    private void linger() {
        closing = true;
        in.clear();
        conn.shutdownOutput();
        updateReading();
        if (eof || conn.isInputShutdown()) {
            conn.close();
        } else {
            lingerTimer = home.callLater(LINGER, () -> {
                if (conn.queuedBytes() > 0) {
                    conn.abort(); // the client has not read its last replies in all this time
                } else {
                    conn.close();
                }
            });
        }
    }

    private void updateReading() {
        boolean want = closing || (!stopping && !drainWait && (!(away || parkedHome) || in.size() < INPUT_AHEAD));
        if (want == reading || !conn.isOpen()) {
            return;
        }
        reading = want;
        if (want) {
            conn.resumeReading();
        } else {
            conn.pauseReading();
        }
    }

    @Override
    public String toString() {
        return "RespConnection[" + conn.remoteAddress() + (away ? ", batch on the data loop" : "")
                + (closing ? ", closing" : "") + "]";
    }
}
