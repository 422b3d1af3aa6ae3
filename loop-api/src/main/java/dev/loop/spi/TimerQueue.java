package dev.loop.spi;

import java.util.function.Consumer;

/**
 * The timer strategy of one loop: a priority structure of {@link TimerNode}s ordered by deadline.
 * Not thread-safe: the engine calls it from the loop thread only (work from other threads reaches
 * it through the loop's inbox).
 *
 * <p>Ordering contract, which the conformance suite checks for every strategy: a timer never
 * expires before its deadline; timers expire in deadline order, and timers with equal deadlines
 * (for a coarser strategy: in the same tick) in {@link TimerNode#sequence()} order.
 */
public interface TimerQueue {
    /** Returned by {@link #nextDeadline()} when the queue is empty. */
    long NO_DEADLINE = Long.MAX_VALUE;

    /** Adds a node that is in no queue. */
    void add(TimerNode node);

    /**
     * Removes a node at once, so a cancelled timer holds no memory until its deadline.
     *
     * @return false if the node was not in this queue (already expired or removed): not an error
     */
    boolean remove(TimerNode node);

    /**
     * The earliest time at which {@link #expire} may have something to hand out, never later than
     * the earliest deadline (a coarser strategy may answer with the start of a tick); the loop
     * sleeps until then. {@link #NO_DEADLINE} when empty.
     */
    long nextDeadline();

    /**
     * Removes, in order, every node whose deadline is {@code <= now}, at most {@code limit} of
     * them, and hands each to {@code sink}.
     *
     * @return how many nodes were handed out
     */
    int expire(long now, int limit, Consumer<? super TimerNode> sink);

    /** Removes every node and hands each to {@code sink}; used when the loop closes. */
    void clear(Consumer<? super TimerNode> sink);

    /** How many nodes are queued. */
    int size();
}
