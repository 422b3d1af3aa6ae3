package dev.loop.net.transport;

import dev.loop.Loop;
import dev.loop.spi.IoReady;

/**
 * A readiness receiver that is also its own loop callback, not thread-safe (loop thread only):
 * any number of reports between two callback phases cost one {@code callSoon} and no allocation.
 *
 * <p>{@link #onReady} only ORs the bits into a field and schedules {@code this} once: it runs
 * inside the backend's poll, where the engine allows nothing else. {@link #run()} hands the bits
 * gathered so far to {@link #ready} in the callback phase, where the system calls are made and
 * futures completed. A report may also come from a callback (a layer that holds bytes the socket
 * no longer has reports {@code READ} itself); it is folded in the same way.
 */
public abstract class CoalescedReadiness implements IoReady, Runnable {
    public final Loop loop;  // read by the helpers of a receiver (a connection's reader and writer)
    private int readyOps;      // bits reported since the last run
    private boolean scheduled; // the run is queued: later reports only add bits

    protected CoalescedReadiness(Loop loop) {
        this.loop = loop;
    }

    @Override
    public final void onReady(int ops) {
        readyOps |= ops;
        if (!scheduled) {
            scheduled = true;
            loop.callSoon(this);
        }
    }

    @Override
    public final void run() {
        scheduled = false;
        int ops = readyOps;
        readyOps = 0;
        ready(ops);
    }

    /**
     * Hands {@code ops}, with any bits recorded since the last run, to {@link #ready} at once. For a
     * layer below that reports from its own callback (already in the callback phase, and not inside
     * a call of this receiver): passing the readiness on costs no second {@code callSoon}, so no
     * extra loop iteration per event. A run still queued then finds no bits left, which is harmless.
     */
    @Override
    public final void onReadyInCallbackPhase(int ops) {
        int all = readyOps | ops;
        readyOps = 0;
        ready(all);
    }

    /**
     * Does the work for the readiness reported since the last call, in the callback phase.
     *
     * @param ops the union of every {@link IoReady} bit reported since then
     */
    protected abstract void ready(int ops);
}
