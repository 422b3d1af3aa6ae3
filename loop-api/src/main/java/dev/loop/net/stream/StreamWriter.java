package dev.loop.net.stream;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The writing half of a {@link StreamConnection}, not thread-safe (loop thread only): writes, the
 * outgoing queue with its watermarks, {@code drain} and the half-close.
 *
 * <p>A write goes to the transport at once while nothing is queued, since a ready socket takes it
 * without waiting for a poll; only what it did not take is copied into the {@link OutboundQueue},
 * which is flushed when the transport reports write readiness. A write taken whole returns one
 * completed future shared by every such write, so the common case allocates nothing.
 */
final class StreamWriter {
    private final StreamConnection conn;
    private final Loop loop;
    private final OutboundQueue out;
    private boolean shutdownAsked; // shutdownOutput was called: no more writes
    private boolean shutdownDone;  // the transport's output is shut (after the queue emptied)
    private Promise<Void> done;    // an already completed future, shared by every immediate write

    StreamWriter(StreamConnection conn) {
        this.conn = conn;
        this.loop = conn.loop;
        this.out = new OutboundQueue(loop, conn.options.lowWatermark(), conn.options.highWatermark());
    }

    /** Whether bytes wait for write readiness. */
    boolean hasQueued() {
        return !out.isEmpty();
    }

    LoopFuture<Void> write(ByteBuffer src) {
        Objects.requireNonNull(src, "src"); // a bug in the caller, whatever state the connection is in
        if (!conn.isOpen() || shutdownAsked) {
            Promise<Void> p = loop.newPromise();
            p.fail(conn.closedCause());
            return p;
        }
        if (!src.hasRemaining()) {
            return done();
        }
        conn.net.stats.streamWrite();
        if (out.isEmpty()) {
            try {
                int n = conn.transport.write(src);
                if (n > 0) {
                    conn.sent(n);
                }
            } catch (IOException e) {
                conn.closeNow(e);
                Promise<Void> p = loop.newPromise();
                p.fail(e);
                return p;
            }
            if (!src.hasRemaining()) {
                return done();
            }
        }
        Promise<Void> p = out.add(src);
        conn.updateInterest();
        return p;
    }

    /**
     * Queues a range of {@code file} behind what is queued, and flushes at once if nothing was: a
     * ready socket takes the first bytes without waiting for a poll, as with {@link #write}.
     */
    LoopFuture<Long> sendFile(FileChannel file, long position, long count) {
        Objects.requireNonNull(file, "file");
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException("position and count must not be negative: position " + position
                    + ", count " + count);
        }
        Promise<Long> p;
        if (!conn.isOpen() || shutdownAsked) {
            p = loop.newPromise();
            p.fail(conn.closedCause());
            return p;
        }
        try {
            // Checked before a byte is queued, so a caller can still answer with an error instead
            // (a file that shrinks while it is sent is caught where it ends, by QueuedFile).
            long size = file.size();
            if (count > size || position > size - count) { // no overflow for a count near Long.MAX_VALUE
                p = loop.newPromise();
                p.fail(new EOFException("the file ends at position " + size + ", before the range asked (position "
                        + position + ", " + count + " bytes) ends"));
                return p;
            }
        } catch (IOException e) {
            p = loop.newPromise();
            p.fail(e); // the file is closed, or cannot be read: the connection is not at fault
            return p;
        }
        if (count == 0) {
            p = loop.newPromise();
            p.complete(0L);
            return p;
        }
        conn.net.stats.streamWrite();
        boolean wasEmpty = out.isEmpty();
        p = out.addFile(file, position, count);
        if (wasEmpty) {
            writeReady();
        }
        conn.updateInterest();
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

    /** The transport reported write readiness (or an error, or a hang-up): flush the queue. */
    void writeReady() {
        if (out.isEmpty()) {
            return;
        }
        try {
            long n = out.flushTo(conn.transport);
            if (n > 0) {
                conn.sent(n);
            }
        } catch (IOException e) {
            conn.closeNow(e);
            return;
        }
        if (out.isEmpty()) {
            afterFlush();
        }
    }

    /** The queue is empty: carry out a half-close that waited for it, then tell the connection. */
    private void afterFlush() {
        if (shutdownAsked && !shutdownDone) {
            shutdownDone = true;
            try {
                conn.transport.shutdownOutput();
            } catch (IOException e) {
                conn.closeNow(e);
                return;
            }
        }
        conn.flushed();
    }

    boolean isWritable() {
        return out.isWritable();
    }

    long queuedBytes() {
        return out.queued();
    }

    LoopFuture<Void> drain() {
        if (conn.isClosed()) {
            Promise<Void> p = loop.newPromise();
            p.fail(conn.closedCause());
            return p;
        }
        Promise<Void> d = out.drain();
        return d != null ? d : done();
    }

    void shutdownOutput() {
        if (!conn.isOpen() || shutdownAsked) {
            return;
        }
        shutdownAsked = true;
        if (out.isEmpty()) {
            afterFlush();
        }
    }

    /** The connection closed: drops the queue and fails every write and drain still waiting. */
    void closed(Throwable why) {
        out.fail(why);
    }
}
