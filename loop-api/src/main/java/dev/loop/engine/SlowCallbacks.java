package dev.loop.engine;

import java.util.function.BiConsumer;

/**
 * Debug mode: times every callback, and the slices of work inside a callback that are named on
 * their own (a task's turn: the callback that resumed it may be a future's dispatch), and logs
 * those at least as slow as the threshold. A slice's time is not counted again for its callback.
 *
 * <p>Not thread-safe: the loop thread.
 */
final class SlowCallbacks {
    private final long thresholdNanos;
    private final EngineLog log;
    private final BiConsumer<Runnable, Throwable> onFailure;
    /** Time inside the running callback already logged as slices of it. */
    private long sliceNanos;

    private final LoopStats stats;

    SlowCallbacks(long thresholdNanos, EngineLog log, BiConsumer<Runnable, Throwable> onFailure, LoopStats stats) {
        this.stats = stats;
        this.thresholdNanos = thresholdNanos;
        this.log = log;
        this.onFailure = onFailure;
    }

    /** Runs {@code r}, handing what it throws to the failure handler, and logs it if slow. */
    void run(Runnable r) {
        long outer = sliceNanos;
        sliceNanos = 0;
        long start = System.nanoTime();
        try {
            r.run();
        } catch (Throwable t) {
            onFailure.accept(r, t);
        }
        long took = System.nanoTime() - start;
        long own = took - sliceNanos;
        sliceNanos = outer + took; // a callback nested in another (close hooks run iterations) was timed here
        if (own >= thresholdNanos) {
            String site = DebugCallback.siteOf(r);
            slow(r, own, site);
            if (LoopEvents.SLOW_CALLBACK.on()) {
                stats.slowCallback(r, site, own);
            }
        }
    }

    /** Ends a slice begun at {@code start} ({@link System#nanoTime()}), logged as {@code what}. */
    void sliceEnd(long start, Object what) {
        long took = System.nanoTime() - start;
        sliceNanos += took;
        if (took >= thresholdNanos) {
            slow(what, took, "");
        }
    }

    private void slow(Object what, long nanos, String site) {
        try {
            if (log.warningOn()) {
                // about what ran: a task's turn names the task, a connection's readiness its addresses
                log.warning("executing " + EngineLog.describe(what) + " took " + nanos / 1_000_000 + " ms" + site, what);
            }
        } catch (Throwable noMemoryForTheMessage) {
            log.lost();
        }
    }
}
