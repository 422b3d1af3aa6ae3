package dev.loop.linux;

import io.netty.channel.IoHandlerContext;

/**
 * What a Netty {@code IoHandler} reads, live, inside {@code run()} when the loop drives it: how
 * long it may block, and whether a wake-up already arrived. Not thread-safe, except
 * {@link #wakeupRequested()}.
 *
 * <p>Netty publishes that it is about to block, then asks {@link #canBlock()}: a wake-up that lands
 * before the wait is therefore never lost, because the flag it sets turns the wait into a
 * non-blocking poll. The flag is cleared after the wait ({@link #pollEnded()}), never before it.
 */
public final class PollContext implements IoHandlerContext {
    private long timeoutNanos;
    private long deadline;
    private volatile boolean wakeupPending;

    /**
     * Sets the next poll's timeout as the engine gives it: 0 does not block, a negative value
     * blocks until woken, a positive one until that many nanoseconds from now.
     */
    public void arm(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
        this.deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : -1;
    }

    /** A wake-up was asked for (any thread): a wait that has not begun yet must not begin. */
    public void wakeupRequested() {
        wakeupPending = true;
    }

    /** The poll returned: the wake-up it may have consumed is settled. */
    public void pollEnded() {
        wakeupPending = false;
    }

    @Override
    public boolean canBlock() {
        // An interrupt cannot end the kernel's wait, but one already pending must not start it:
        // the engine stops after this iteration.
        return timeoutNanos != 0 && !wakeupPending && !Thread.currentThread().isInterrupted();
    }

    @Override
    public long delayNanos(long currentTimeNanos) {
        return timeoutNanos < 0 ? Long.MAX_VALUE : Math.max(0, deadline - currentTimeNanos);
    }

    @Override
    public long deadlineNanos() {
        // The same instant is always the same value: Netty's epoll skips re-arming its timerfd
        // when the deadline did not change.
        return deadline;
    }
}
