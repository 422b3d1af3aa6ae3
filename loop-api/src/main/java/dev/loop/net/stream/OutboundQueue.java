package dev.loop.net.stream;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.transport.WatermarkedQueue;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A connection's outgoing bytes that the kernel did not take yet, the futures waiting for them,
 * and their watermarks ({@link WatermarkedQueue}). Not thread-safe: loop thread only.
 *
 * <p>Write futures wait for a byte mark: each queued write remembers the running total of bytes
 * queued when it was added, and completes once that many have been flushed. The queue holds heap
 * copies owned by the connection, flushed with gathering writes.
 *
 * <p>Files ({@link QueuedFile}) take their place in the same order: each remembers how many
 * buffers were added before it, a gathering write never reaches past it, and the buffers added
 * after it wait until it is done. A file's unsent bytes count toward the byte marks and the
 * watermarks like queued bytes (they are owed to the peer, though not held in memory), so
 * {@code drain()} after a large file waits for the file; a file given up (cancelled, or shorter
 * than its range) counts its unsent bytes as flushed, so later marks stay true.
 */
final class OutboundQueue extends WatermarkedQueue {
    /** Buffers handed to one gathering write at most. */
    static final int MAX_GATHER = 64;
    /**
     * The most of one file moved per flush (4 MiB): a socket with a large send buffer, or a TLS
     * layer that keeps taking, would otherwise let one file hold the loop for as long as it lasts.
     */
    static final long FILE_SHARE = 4L << 20;

    private record WriteWaiter(long end, Promise<Void> promise) { }

    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    private final ArrayDeque<WriteWaiter> waiters = new ArrayDeque<>();
    private final ArrayDeque<QueuedFile> files = new ArrayDeque<>(2);
    private ByteBuffer[] gather;
    private long queuedTotal;
    private long flushedTotal;
    private long buffersAdded;   // ever, so a file knows which buffers go before it
    private long buffersRemoved;

    OutboundQueue(Loop loop, int lowWatermark, int highWatermark) {
        super(loop, lowWatermark, highWatermark);
    }

    boolean isEmpty() {
        return out.isEmpty() && files.isEmpty();
    }

    /** Copies {@code src}'s remaining bytes to the tail; the future completes once they are flushed. */
    Promise<Void> add(ByteBuffer src) {
        int n = src.remaining();
        out.addLast(ByteBuffer.allocate(n).put(src).flip());
        buffersAdded++;
        queuedTotal += n;
        Promise<Void> p = loop.newPromise();
        waiters.addLast(new WriteWaiter(queuedTotal, p));
        added(n);
        return p;
    }

    /**
     * Queues {@code count} bytes of {@code file} from {@code position} after everything queued so
     * far; the future completes with {@code count} once the transport took the last of them.
     */
    Promise<Long> addFile(FileChannel file, long position, long count) {
        Promise<Long> p = loop.newPromise();
        files.addLast(new QueuedFile(file, position, count, p, buffersAdded));
        queuedTotal += count;
        added(count);
        return p;
    }

    /**
     * Writes to {@code transport} until the queue is empty or the kernel is full, then completes the
     * futures whose bytes went out.
     *
     * @return bytes written
     */
    long flushTo(IoTransport transport) throws IOException {
        if (gather == null) {
            gather = new ByteBuffer[MAX_GATHER];
        }
        long total = 0;
        while (!isEmpty()) {
            QueuedFile file = files.peekFirst();
            long before = file == null ? Long.MAX_VALUE : file.afterBuffers - buffersRemoved;
            if (before == 0) {
                long n = sendFile(file, transport);
                if (n < 0) {
                    continue; // given up: the bytes after it are next
                }
                total += n;
                if (file.unsent() > 0) {
                    break; // the transport is full, or this flush moved its share of the file
                }
                files.pollFirst();
                completeWaiters(); // the writes before it first, as their bytes went first
                file.promise.tryComplete(file.count);
                continue;
            }
            int count = 0;
            for (ByteBuffer b : out) {
                gather[count++] = b;
                if (count == MAX_GATHER || count == before) {
                    break;
                }
            }
            long n = count == 1 ? transport.write(gather[0]) : transport.write(gather, 0, count);
            Arrays.fill(gather, 0, count, null);
            if (n <= 0) {
                break;
            }
            total += n;
            removed(n);
            flushedTotal += n;
            while (!out.isEmpty() && !out.peekFirst().hasRemaining()) {
                out.pollFirst();
                buffersRemoved++;
            }
            if (!out.isEmpty() && out.peekFirst().position() > 0) {
                break; // the kernel took only part: it is full
            }
        }
        completeWaiters();
        flushed();
        return total;
    }

    private void completeWaiters() {
        while (!waiters.isEmpty() && waiters.peekFirst().end <= flushedTotal) {
            waiters.pollFirst().promise.tryComplete(null);
        }
    }

    /**
     * Moves the head file's next bytes, at most {@link #FILE_SHARE} per flush, so one large file
     * does not hold the loop from the connections beside it (the rest goes on the next write
     * readiness, which a socket with room reports at once).
     *
     * @return bytes moved, or -1 once the file is given up (cancelled, or shorter than its range)
     *         and taken off the queue, its unsent bytes counted as flushed
     */
    private long sendFile(QueuedFile file, IoTransport transport) throws IOException {
        long moved = 0;
        while (file.unsent() > 0 && moved < FILE_SHARE) {
            if (file.promise.isCancelled() && file.atChunkEnd()) {
                return giveUp(file);
            }
            long n = file.sendTo(transport);
            if (n < 0) {
                return giveUp(file);
            }
            moved += n;
            removed(n);
            flushedTotal += n;
            if (n == 0 || file.isFull()) {
                break;
            }
        }
        return moved;
    }

    private long giveUp(QueuedFile file) {
        long left = file.unsent();
        file.release();
        files.pollFirst();
        removed(left);
        flushedTotal += left;
        return -1; // its future is already cancelled, or failed saying where the file ended
    }

    /** Drops every byte and fails every waiter with {@code why}. */
    void fail(Throwable why) {
        out.clear();
        for (QueuedFile f : files) {
            f.release();
            f.promise.tryFail(why);
        }
        files.clear();
        while (!waiters.isEmpty()) {
            waiters.pollFirst().promise.tryFail(why);
        }
        dropped(why);
    }
}
