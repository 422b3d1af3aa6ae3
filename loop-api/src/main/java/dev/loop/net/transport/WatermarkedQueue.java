package dev.loop.net.transport;

import dev.loop.Loop;
import dev.loop.Promise;
import java.util.ArrayDeque;

/**
 * What every outgoing queue shares: the bytes it holds, measured against its high and low
 * watermarks, and the callers waiting in {@code drain()} for it to fall to the low one. Not
 * thread-safe: loop thread only.
 *
 * <p>A connection's byte queue ({@code stream.OutboundQueue}) and an endpoint's datagram queue
 * ({@code dgram.DatagramQueue}) keep the one rule here: above the high mark the queue is not writable; at
 * the low mark it is again and every waiting drain completes. Each subclass reports what it queued
 * and sent; counting costs no allocation, and only a caller that has to wait gets a future.
 */
public abstract class WatermarkedQueue {
    protected final Loop loop;
    private final int high;
    private final int low;
    private long queued;
    private boolean writable = true;
    // one promise per drain() caller, so each can be cancelled alone; made on the first wait
    private ArrayDeque<Promise<Void>> drainers;

    protected WatermarkedQueue(Loop loop, int lowWatermark, int highWatermark) {
        this.loop = loop;
        this.low = lowWatermark;
        this.high = highWatermark;
    }

    /** Bytes queued for the kernel right now. */
    public final long queued() {
        return queued;
    }

    public final boolean isWritable() {
        return writable;
    }

    /**
     * A future of its own, done once at most the low watermark is queued; null if that holds
     * already. Cancelling it withdraws only this caller, not every other one waiting.
     */
    public final Promise<Void> drain() {
        if (queued <= low) {
            return null;
        }
        if (drainers == null) {
            drainers = new ArrayDeque<>(4);
        }
        // callers that gave up (cancelled) leave from the front; the rest are bounded by the callers
        while (!drainers.isEmpty() && drainers.peekFirst().isDone()) {
            drainers.pollFirst();
        }
        Promise<Void> d = loop.newPromise();
        drainers.addLast(d);
        return d;
    }

    /** {@code n} more bytes wait: past the high mark, the queue stops being writable. */
    protected final void added(long n) {
        queued += n;
        if (queued > high) {
            writable = false;
        }
    }

    /**
     * {@code n} bytes left. The low mark is checked once per flush, in {@link #flushed()}, so the
     * drains complete after the futures of what was sent.
     */
    protected final void removed(long n) {
        queued -= n;
    }

    /** A flush is over: at or below the low mark, writable again, and every waiting drain completes. */
    protected final void flushed() {
        if (queued <= low) {
            writable = true;
            Promise<Void> d;
            while (drainers != null && (d = drainers.pollFirst()) != null) {
                d.tryComplete(null); // false for a caller that gave up waiting: nothing to do
            }
        }
    }

    /** Everything queued was dropped: nothing is counted, and every waiting drain fails with {@code why}. */
    protected final void dropped(Throwable why) {
        queued = 0;
        Promise<Void> d;
        while (drainers != null && (d = drainers.pollFirst()) != null) {
            d.tryFail(why);
        }
    }
}
