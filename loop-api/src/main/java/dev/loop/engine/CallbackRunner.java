package dev.loop.engine;

/**
 * How the engine runs one callback: what escapes it goes to the loop's exception handler (and,
 * should even the message fail, is counted as lost), and in debug mode the callback is tagged with
 * where it was scheduled and timed, alone and in the named slices of work inside it (a task's
 * turn), so a slow one is logged. Outside debug mode a callback runs as it is, with no wrapper and
 * no clock read.
 *
 * <p>Not thread-safe: the loop thread, apart from {@link #tag}, which any thread may call.
 */
final class CallbackRunner {
    private final Engine engine;
    private final EngineLog log;
    /** Debug mode only, else null. */
    private final SlowCallbacks slow;
    private final LoopStats stats;

    CallbackRunner(Engine engine, EngineLog log, boolean debug, long slowCallbackNanos, LoopStats stats) {
        this.engine = engine;
        this.log = log;
        this.stats = stats;
        this.slow = debug ? new SlowCallbacks(slowCallbackNanos, log, this::failed, stats) : null;
    }

    /** {@code callback} as it is queued: in debug mode wrapped to remember where it was scheduled. Any thread. */
    Runnable tag(Runnable callback) {
        return slow != null ? DebugCallback.wrap(callback) : callback;
    }

    /**
     * Runs the first {@code n} callbacks of {@code queue}, taking each off it before it runs;
     * nothing escapes. Whether they are timed is decided once for the batch: a recording that
     * begins in the middle of one sees the callbacks of the next.
     */
    void runAll(ReadyQueue queue, int n) {
        if (slow != null || LoopEvents.SLOW_CALLBACK.on()) {
            for (; n > 0; n--) {
                run(queue.pollFirst());
            }
            return;
        }
        for (; n > 0; n--) {
            Runnable r = queue.pollFirst();
            try {
                r.run();
            } catch (Throwable t) {
                failed(r, t);
            }
        }
    }

    /** Runs {@code r}; nothing escapes. */
    void run(Runnable r) {
        if (slow != null) {
            slow.run(r);
            return;
        }
        if (LoopEvents.SLOW_CALLBACK.on()) {
            timed(r);
            return;
        }
        try {
            r.run();
        } catch (Throwable t) {
            failed(r, t);
        }
    }

    /** A recording wants slow callbacks: the only case outside debug mode that reads the clock per callback. */
    private void timed(Runnable r) {
        long start = System.nanoTime();
        try {
            r.run();
        } catch (Throwable t) {
            failed(r, t);
        }
        stats.slowCallback(r, null, System.nanoTime() - start);
    }

    long sliceStart() {
        return slow != null ? System.nanoTime() : 0;
    }

    void sliceEnd(long start, Object what) {
        if (slow != null) {
            slow.sliceEnd(start, what);
        }
    }

    private void failed(Runnable r, Throwable t) {
        try {
            engine.report("exception in callback " + EngineLog.describe(r), t, r);
        } catch (Throwable noMemoryForTheMessage) {
            log.lost();
        }
    }
}
