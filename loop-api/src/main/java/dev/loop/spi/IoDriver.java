package dev.loop.spi;

/**
 * The I/O side of one loop, as a backend implements it. Not thread-safe except {@link #wakeup()}.
 *
 * <p>The backend never sees the loop: each iteration the engine tells it how long it may block,
 * and readiness handlers it dispatches do nothing but enqueue callbacks on the loop. The model is
 * Netty 4.2's {@code IoHandler}; the name differs so that a backend built on Netty never has two
 * types of the same simple name in one file.
 */
public interface IoDriver extends AutoCloseable {
    /** {@link #poll} timeout meaning: block until an event or a {@link #wakeup()}. */
    long BLOCK_UNTIL_WOKEN = -1;

    /**
     * Waits for readiness and dispatches it. {@code timeoutNanos == 0}: do not block;
     * {@code > 0}: block at most that long, rounding <em>down</em> to the backend's resolution
     * (the engine covers the remainder, so a coarse backend never oversleeps);
     * {@link #BLOCK_UNTIL_WOKEN}: block until an event or a wakeup.
     *
     * @return how many readiness events were dispatched
     */
    int poll(long timeoutNanos) throws java.io.IOException;

    /**
     * Makes a blocked or the next {@link #poll} return at once. Any thread. The engine calls it at
     * most once per sleep.
     */
    void wakeup();

    /**
     * The shortest blocking wait this backend can express, in nanoseconds (a millisecond for
     * {@code Selector} and {@code epoll_wait}). The engine never asks it to block for less.
     */
    long resolutionNanos();

    /**
     * The backend's sockets, or {@code null} when it has none (test backends). The engine's TCP
     * API ({@code dev.loop.Net}) calls it on the loop thread.
     */
    default NetIo net() {
        return null;
    }

    /**
     * Where this driver reports a readiness receiver that threw: every driver hands readiness over
     * with {@link Readiness#deliver}, passing what it was given here. The engine calls this once,
     * before the first poll; until then (and in a driver without receivers, which may keep this
     * default) failures are {@linkplain Readiness#LOGGED logged}.
     */
    default void reportFailuresTo(Readiness.Failures failures) {
    }

    /**
     * The counts this backend keeps of its own work (its system calls, typically), which the
     * loop's metrics snapshot reports as {@code backendCounters}; {@code null} when it keeps none.
     * The same object every call; made by the driver when it is made.
     */
    default IoCounters counters() {
        return null;
    }

    /** Releases the backend's resources (selector, epoll fd). Called once, on the loop thread. */
    @Override
    void close();
}
