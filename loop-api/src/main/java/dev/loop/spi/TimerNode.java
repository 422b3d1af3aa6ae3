package dev.loop.spi;

/**
 * One scheduled timer as a {@link TimerQueue} sees it. Not thread-safe: a node is touched only by
 * the loop thread that owns the queue holding it.
 *
 * <p>The node is the queue's bookkeeping record as well, so that adding and cancelling a timer
 * allocate nothing beyond the node itself (the heap keeps its array index in {@link #slot()}, as
 * Netty's {@code ScheduledFutureTask} does; a wheel links nodes of one bucket through
 * {@link #prev()}/{@link #next()}). Those fields belong to the queue that holds the node; the
 * engine never reads them.
 */
public abstract class TimerNode {
    private long deadline;
    private long sequence;
    private int slot = -1;
    private TimerNode prev;
    private TimerNode next;

    protected TimerNode(long deadlineNanos) {
        this.deadline = deadlineNanos;
    }

    /** The loop time, in nanoseconds, at or after which this timer is due. */
    public final long deadline() {
        return deadline;
    }

    /** Scheduling order, set by the engine when the node enters a queue; breaks deadline ties. */
    public final long sequence() {
        return sequence;
    }

    public final void sequence(long sequence) {
        this.sequence = sequence;
    }

    /** Queue-private position (heap index, wheel bucket); {@code -1} while in no queue. */
    public final int slot() {
        return slot;
    }

    public final void slot(int slot) {
        this.slot = slot;
    }

    public final TimerNode prev() {
        return prev;
    }

    public final void prev(TimerNode prev) {
        this.prev = prev;
    }

    public final TimerNode next() {
        return next;
    }

    public final void next(TimerNode next) {
        this.next = next;
    }

    /** True when {@code this} is due before {@code other}: earlier deadline, then earlier sequence. */
    public final boolean before(TimerNode other) {
        return deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence);
    }
}
