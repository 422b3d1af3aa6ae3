package dev.loop.testing;

import dev.loop.spi.IoDriver;
import dev.loop.spi.NetIo;
import dev.loop.spi.Readiness;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A backend without I/O for engine tests: it parks, with a millisecond resolution like the real
 * ones, and records every poll timeout so tests can see what the engine asked for.
 */
public final class ParkingDriver implements IoDriver {
    public final ConcurrentLinkedQueue<Long> timeouts = new ConcurrentLinkedQueue<>();
    public final AtomicInteger wakeups = new AtomicInteger();
    public volatile boolean closed;
    /** When set, a blocking poll that was woken waits for it before returning (to hold a burst). */
    public volatile java.util.concurrent.CountDownLatch holdAfterWake;
    /** When set, a poll with a timeout calls it instead of parking: a test clock "sleeps" exactly. */
    public volatile java.util.function.LongConsumer sleeper;
    /** The sockets this backend offers, if a test gives it some (none by default). */
    public volatile NetIo net;
    /** What the engine gave for receivers' failures. */
    public volatile Readiness.Failures failures;
    /** When set, the next poll runs it (once) as a backend dispatching readiness would. */
    public volatile Runnable dispatchOnce;
    /** True while a poll runs. */
    public volatile boolean polling;
    private final AtomicBoolean woken = new AtomicBoolean();
    private volatile Thread poller;

    @Override
    public int poll(long timeoutNanos) {
        polling = true;
        try {
            Runnable dispatch = dispatchOnce;
            if (dispatch != null) {
                dispatchOnce = null;
                dispatch.run();
            }
            return park(timeoutNanos);
        } finally {
            polling = false;
        }
    }

    @Override
    public void reportFailuresTo(Readiness.Failures failures) {
        this.failures = failures;
    }

    private int park(long timeoutNanos) {
        timeouts.add(timeoutNanos);
        if (timeoutNanos == 0 || woken.getAndSet(false)) {
            return 0;
        }
        java.util.function.LongConsumer sleep = sleeper;
        if (sleep != null && timeoutNanos > 0) {
            sleep.accept(timeoutNanos);
            return 0;
        }
        poller = Thread.currentThread();
        long end = System.nanoTime() + timeoutNanos;
        while (!woken.getAndSet(false)) {
            if (Thread.currentThread().isInterrupted()) {
                break; // park returns at once when interrupted: return too, like Selector.select
            }
            if (timeoutNanos < 0) {
                LockSupport.park(this);
            } else {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, left);
            }
        }
        poller = null;
        java.util.concurrent.CountDownLatch hold = holdAfterWake;
        if (hold != null) {
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return 0;
    }

    @Override
    public void wakeup() {
        wakeups.incrementAndGet();
        woken.set(true);
        Thread t = poller;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public NetIo net() {
        return net;
    }

    @Override
    public long resolutionNanos() {
        return 1_000_000;
    }

    @Override
    public void close() {
        closed = true;
    }
}
