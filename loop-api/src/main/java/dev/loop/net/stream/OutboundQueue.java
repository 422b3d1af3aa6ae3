package dev.loop.net.stream;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.transport.WatermarkedQueue;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A connection's outgoing bytes that the kernel did not take yet, the futures waiting for them,
 * and their watermarks ({@link WatermarkedQueue}). Not thread-safe: loop thread only.
 *
 * <p>Write futures wait for a byte mark: each queued write remembers the running total of bytes
 * queued when it was added, and completes once that many have been flushed. The queue holds heap
 * copies owned by the connection, flushed with gathering writes.
 */
final class OutboundQueue extends WatermarkedQueue {
    /** Buffers handed to one gathering write at most. */
    static final int MAX_GATHER = 64;

    private record WriteWaiter(long end, Promise<Void> promise) { }

    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    private final ArrayDeque<WriteWaiter> waiters = new ArrayDeque<>();
    private ByteBuffer[] gather;
    private long queuedTotal;
    private long flushedTotal;

    OutboundQueue(Loop loop, int lowWatermark, int highWatermark) {
        super(loop, lowWatermark, highWatermark);
    }

    boolean isEmpty() {
        return out.isEmpty();
    }

    /** Copies {@code src}'s remaining bytes to the tail; the future completes once they are flushed. */
    Promise<Void> add(ByteBuffer src) {
        int n = src.remaining();
        out.addLast(ByteBuffer.allocate(n).put(src).flip());
        queuedTotal += n;
        Promise<Void> p = loop.newPromise();
        waiters.addLast(new WriteWaiter(queuedTotal, p));
        added(n);
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
        while (!out.isEmpty()) {
            int count = 0;
            for (ByteBuffer b : out) {
                gather[count++] = b;
                if (count == MAX_GATHER) {
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
            }
            if (!out.isEmpty() && out.peekFirst().position() > 0) {
                break; // the kernel took only part: it is full
            }
        }
        while (!waiters.isEmpty() && waiters.peekFirst().end <= flushedTotal) {
            waiters.pollFirst().promise.tryComplete(null);
        }
        flushed();
        return total;
    }

    /** Drops every byte and fails every waiter with {@code why}. */
    void fail(Throwable why) {
        out.clear();
        while (!waiters.isEmpty()) {
            waiters.pollFirst().promise.tryFail(why);
        }
        dropped(why);
    }
}
