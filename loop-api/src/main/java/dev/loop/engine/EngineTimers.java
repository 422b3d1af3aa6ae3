package dev.loop.engine;

import dev.loop.spi.LoopClock;
import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The engine's side of its timer strategy: the order of equal deadlines (a sequence number given
 * when a timer joins the queue, so ties fire in the order they were scheduled), the cap on timers
 * moved to the ready queue per iteration, and what closing means for timers. Which thread may
 * touch the queue is the engine's business ({@link Engine#schedule}).
 *
 * <p>Not thread-safe: the loop thread, or the thread closing the loop.
 */
final class EngineTimers {
    private final TimerQueue queue;
    private final int maxPerIteration;
    private final Consumer<TimerNode> fire;
    private final LoopStats stats;
    private long sequence;

    EngineTimers(TimerQueue queue, int maxPerIteration, ReadyQueue ready, LoopStats stats) {
        this.stats = stats;
        this.queue = Objects.requireNonNull(queue, "timers");
        this.maxPerIteration = maxPerIteration;
        this.fire = node -> ready.addLast((EngineTimer) node);
    }

    /** Queues {@code t}; while the loop closes, cancels it instead: timers cannot outlive the loop. */
    void add(EngineTimer t, boolean closing) {
        if (closing) {
            t.cancel();
        } else {
            t.sequence(sequence++);
            queue.add(t);
        }
    }

    /** A timer created or cancelled on another thread, taken from the inbox: queue it, or drop it. */
    void fromInbox(EngineTimer t, boolean closing) {
        if (t.isCancelled()) {
            queue.remove(t);
        } else {
            add(t, closing);
        }
    }

    void remove(EngineTimer t) {
        queue.remove(t);
    }

    /**
     * Phase 4: moves the timers due now to the ready queue, at most the cap. The clock is read
     * only when a timer is pending: a read of the real clock costs more than the rest of an
     * iteration without timers.
     */
    void expire(LoopClock clock) {
        if (queue.size() > 0) {
            stats.timersFired(queue.expire(clock.nanoTime(), maxPerIteration, fire));
        }
    }

    /** Closing: every pending timer is cancelled. */
    void cancelAll() {
        queue.clear(node -> ((EngineTimer) node).cancel());
    }

    int size() {
        return queue.size();
    }
}
