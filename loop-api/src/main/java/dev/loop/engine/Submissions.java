package dev.loop.engine;

import org.jctools.queues.MessagePassingQueue;

/**
 * What other threads submit through the {@link Inbox}, as the loop takes it in: the submitting
 * side's offer and wake-up, and the loop thread's moves of submissions into the ready queue and the
 * timers, or its runs of them straight from the inbox. Every path keeps the one order
 * {@link Engine#callSoon} promises: a submission never overtakes one that happened before it.
 *
 * <p>{@link #submit} and {@link #submitTimer} are thread-safe; everything else belongs to the thread running or closing the
 * loop, as the engine's ready queue does.
 */
final class Submissions {
    private final Engine engine;
    private final Inbox inbox;
    private final ReadyQueue ready;
    private final EngineTimers timers;
    private final CallbackRunner callbacks;
    private final LoopStats stats;
    private final int maxPerIteration;
    // Made once: a method reference per drain would allocate on the hot path.
    private final MessagePassingQueue.Consumer<Object> toReady = this::accept;
    private final MessagePassingQueue.Consumer<Object> runNow = this::run;
    /**
     * The loop thread's own state, written in every iteration that takes submissions, kept off the
     * cache lines submitters read. Every {@link #submit} reads this object's {@code engine} and
     * {@code inbox}; a flag beside them, written once per iteration, cost each submitter a cache
     * miss per iteration, which slows the producer most when the loop keeps up with it best
     * (docs/BENCHMARKS.md). An array lays its elements out in order, so the one in the middle has
     * {@value #PAD} of its longs (128 bytes: a cache line and the line a prefetcher pairs with it)
     * on either side, wherever the heap puts it.
     */
    private final long[] own = new long[PAD + 4 + PAD];
    private static final int PAD = 16;
    /** Nonzero: the inbox gave the loop something since phase 2 last looked. */
    private static final int FED = PAD;
    /** Submissions phase 5 ran in this iteration so far; phase 1 reads the previous one's. */
    private static final int TAKEN = PAD + 1;
    /** When phase 1 last counted the inbox in a stream ({@link System#nanoTime()}). */
    private static final int COUNTED_AT = PAD + 2;
    /** Times phase 1 waited before counting ({@link #paces()}). */
    private static final int PACES = PAD + 3;
    /** The previous iteration ran at least this many submissions: the loop is in a stream. */
    private static final int STREAM_MIN = 2;
    /** In a stream, phase 1 counts the inbox at most once per this many ns of real time. */
    static final long STREAM_LOOK_NANOS = 2_000;
    /** {@link #STREAM_LOOK_NANOS}, unless a test asks for longer. */
    private long streamLookNanos = STREAM_LOOK_NANOS;
    /**
     * A timer (or its cancel) was submitted through the inbox since phase 1 last looked: the
     * next phase 1 moves the inbox as it is, so the timer is queued before phase 4 expires the
     * due ones and a timer due at once fires in the first iteration after it was scheduled.
     * Written before the offer, so an offer that happened before an iteration is seen by it.
     */
    private volatile boolean timersWaiting;

    Submissions(Engine engine, Inbox inbox, ReadyQueue ready, EngineTimers timers,
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

    /** {@link #submit} of a new timer or a cancel. Any thread. */
    void submitTimer(EngineTimer t) {
        timersWaiting = true;
        submit(t);
    }

    /** {@link #behindInbox} of a new timer or a cancel. */
    void timerBehindInbox(EngineTimer t) {
        timersWaiting = true;
        behindInbox(t);
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

    /**
     * Close, and phase 1 when a timer waits ({@link #countAtStart}): moves what waits in the inbox
     * (capped) behind the ready callbacks. Returns how many it moved.
     */
    int drain() {
        int moved = inbox.drain(toReady, maxPerIteration);
        if (moved > 0) {
            own[FED] = 1;
        }
        return moved;
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
     * Phase 1: how many submissions (capped) wait in the inbox as the iteration begins. Phase 5
     * runs them straight from the inbox, after the callbacks left from the previous iteration and
     * before the I/O callbacks and timers, where a move behind the ready queue would have put
     * them, without the copy through the ready queue (docs/BENCHMARKS.md). They are moved as
     * before, and 0 returned, while closing and when a timer waits among them.
     */
    int countAtStart() {
        long took = own[TAKEN];
        own[TAKEN] = 0; // every iteration: a stream is judged by the previous iteration alone
        boolean timers = timersWaiting;
        if (timers) {
            timersWaiting = false; // before the drain: a timer offered after it is seen next time
        }
        if (timers || engine.isClosing()) {
            if (drain() == maxPerIteration && timers) {
                timersWaiting = true; // the cap may have left the timer behind: move again next time
            }
            return 0;
        }
        if (took >= STREAM_MIN && ready.isEmpty()) {
            pace();
        }
        return Math.min(inbox.size(), maxPerIteration);
    }

    /**
     * In a stream of submissions, waits until {@link #STREAM_LOOK_NANOS} have passed since phase 1
     * last counted the inbox. Counting reads the index every submitter writes, and the read takes
     * its cache line from the producer, whose next offer stalls until the line comes back. A loop
     * with nothing else to do would count again a few submissions later, and the producer would
     * pay that stall every few submissions (a line's trip between two CPUs costs tens to hundreds
     * of ns). Spaced by 2 µs, the producer fills a few hundred submissions between two looks
     * (measured in docs/BENCHMARKS.md, "the loop at its producer's heels", with 0.5, 1, 2 and
     * 4 µs; Netty's loop spaces its looks with the system call of its non-blocking poll). A
     * streamed submission may wait that much longer to be counted; none waits more. The wait
     * reads only the clock; a lone submission, the first iteration of a stream and a loop with
     * callbacks ready never wait, and an iteration that took longer than the interval (a poll's
     * system call, I/O callbacks) does not either. No submission is reordered: the count is
     * simply taken later.
     */
    private void pace() {
        long now = System.nanoTime();
        long until = own[COUNTED_AT] + streamLookNanos;
        if (now - until < 0) {
            own[PACES]++;
            do {
                now = System.nanoTime(); // no onSpinWait: a hypervisor may trap it (see Sleep.linger)
            } while (now - until < 0);
        }
        own[COUNTED_AT] = now;
    }

    /** How often phase 1 waited for a stream. Loop thread, or after it stopped. */
    long paces() {
        return own[PACES];
    }

    /** For tests: spaces phase 1's counts in a stream by {@code nanos} instead. */
    void spaceStreamLooks(long nanos) {
        streamLookNanos = nanos;
    }

    /**
     * Phase 4: how many more (capped) arrived while the loop polled, beyond the {@code counted} of
     * phase 1; phase 5 runs them after the ready callbacks, in the order a move behind them would
     * give. Closing moves them: a callSoon there drains the inbox ({@link #behindInbox}), never
     * inside a drain.
     *
     * <p>Only a poll that {@code mayHaveWaited} is worth the second look: a submission is what
     * usually wakes a sleeping loop, and running it in the iteration it woke saves a whole poll.
     * After a poll that did not wait, what arrived meanwhile runs first thing next iteration,
     * still in its order, and the look is saved: reading how far the submitters got takes the
     * cache line they all write from whichever of them wrote last. A loop keeping pace with a
     * stream of submissions used to read it three times per iteration, few submissions apart,
     * and each read stalled the producer's next offer; the producer slowed, the loop kept
     * closer still, and the pair settled at a few submissions per iteration and half the rate
     * (docs/BENCHMARKS.md, "the loop at its producer's heels").
     */
    int countWhilePolling(int counted, boolean mayHaveWaited) {
        if (engine.isClosing()) {
            drain();
            return 0;
        }
        if (!mayHaveWaited) {
            return 0;
        }
        return Math.min(inbox.size() - counted, maxPerIteration);
    }

    /**
     * Phase 5: runs up to {@code count} submissions a count of phase 1 or 4 found, straight from
     * the inbox. Fewer run if a submitter has claimed its slot and not yet written it: the drain
     * stops there, and the rest run with the next count, still in their order.
     */
    void run(int count) {
        if (count > 0) {
            int ran = inbox.take(runNow, count);
            if (ran > 0) {
                own[FED] = 1;
                own[TAKEN] += ran;
            }
        }
    }

    private void run(Object item) {
        stats.fromOtherThread(); // counted before it runs: what it makes happen sees it counted
        if (item instanceof EngineTimer t) {
            timers.fromInbox(t, engine.isClosing());
        } else {
            callbacks.run((Runnable) item);
        }
    }

    /** Whether the inbox gave the loop something since phase 2 last {@linkplain #looked looked}. */
    boolean fed() {
        return own[FED] != 0;
    }

    /** Phase 2 has looked at {@link #fed()}. */
    void looked() {
        if (own[FED] != 0) {
            own[FED] = 0;
        }
    }
}
