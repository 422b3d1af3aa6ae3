package dev.loop.engine;

import java.util.ArrayDeque;
import org.jctools.queues.MessagePassingQueue;

/**
 * What other threads submit through the {@link Inbox}, as the loop takes it in: the submitting
 * side's offer and wake-up, and the loop thread's moves of submissions into the ready queue and the
 * timers, or its runs of them straight from the inbox. Every path keeps the one order
 * {@link Engine#callSoon} promises: a submission never overtakes one that happened before it.
 *
 * <p>{@link #submit} is thread-safe; everything else belongs to the thread running or closing the
 * loop, as the engine's ready queue does.
 */
final class Submissions {
    private final Engine engine;
    private final Inbox inbox;
    private final ArrayDeque<Runnable> ready;
    private final EngineTimers timers;
    private final CallbackRunner callbacks;
    private final LoopStats stats;
    private final int maxPerIteration;
    // Made once: a method reference per drain would allocate on the hot path.
    private final MessagePassingQueue.Consumer<Object> toReady = this::accept;
    private final MessagePassingQueue.Consumer<Object> runNow = this::run;
    private boolean fed; // the inbox gave the loop something since phase 2 last looked

    Submissions(Engine engine, Inbox inbox, ArrayDeque<Runnable> ready, EngineTimers timers,
                CallbackRunner callbacks, LoopStats stats, int maxPerIteration) {
        this.engine = engine;
        this.inbox = inbox;
        this.ready = ready;
        this.timers = timers;
        this.callbacks = callbacks;
        this.stats = stats;
        this.maxPerIteration = maxPerIteration;
    }

    /** Hands {@code item} to the loop from another thread, waking it if it sleeps. Any thread. */
    void submit(Object item) {
        if (inbox.offer(item)) {
            engine.wakeIfSleeping();
        }
    }

    /**
     * On the loop thread while submissions of other threads wait in the inbox: those may have
     * happened before this one, so it queues behind them instead of overtaking them in the ready
     * queue. While running, the loop thread offers to the inbox like anyone else (no wake-up: it
     * is awake); while closing, close owns the inbox, so what waits there is taken first.
     */
    void behindInbox(Object item) {
        if (engine.isClosing()) {
            drain();
            accept(item);
        } else {
            inbox.offer(item); // never shut while the loop runs: close refuses a running loop
        }
    }

    /** Phase 1 (and close): moves what waits in the inbox (capped) behind the ready callbacks. */
    void drain() {
        if (inbox.drain(toReady, maxPerIteration) > 0) {
            fed = true;
        }
    }

    /** Takes one submission in: a callback joins the ready queue, a timer (or its cancel) the timers. */
    void accept(Object item) {
        stats.fromOtherThread();
        if (item instanceof EngineTimer t) {
            timers.fromInbox(t, engine.isClosing());
        } else {
            ready.addLast((Runnable) item);
        }
    }

    /**
     * Phase 4's count of the inbox (capped): run after the ready callbacks, in the order a move
     * behind them would give, without the copy through the ready queue (docs/BENCHMARKS.md).
     * Closing moves them: a callSoon there drains the inbox ({@link #behindInbox}), never inside a drain.
     */
    int countWhilePolling() {
        if (engine.isClosing()) {
            drain();
            return 0;
        }
        return Math.min(inbox.size(), maxPerIteration);
    }

    /** Phase 5: runs the {@code count} submissions phase 4 counted, straight from the inbox. */
    void run(int count) {
        if (count > 0 && inbox.drain(runNow, count) > 0) {
            fed = true;
        }
    }

    private void run(Object item) {
        stats.fromOtherThread();
        if (item instanceof EngineTimer t) {
            timers.fromInbox(t, engine.isClosing());
        } else {
            callbacks.run((Runnable) item);
        }
    }

    /** Whether the inbox gave the loop something since phase 2 last {@linkplain #looked looked}. */
    boolean fed() {
        return fed;
    }

    /** Phase 2 has looked at {@link #fed()}. */
    void looked() {
        fed = false;
    }
}
