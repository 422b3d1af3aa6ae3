package dev.loop.engine;

import dev.loop.spi.IoDriver;
import dev.loop.spi.LoopClock;
import dev.loop.spi.TimerQueue;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How the loop waits (phases 2 and 3 of an iteration) and how other threads wake it. The wake-up
 * word says what the loop thread is doing, so other threads wake it only when it sleeps: one
 * eventfd write or selector wakeup per sleep, however many submissions arrive. The loop publishes
 * "polling" before its last look at the inbox, the stop flag and the clock; a submitter offers
 * first and reads the word second, so one of the two always sees the other (no lost wake-up).
 *
 * <p>Thread-safe: {@link #wake()} from any thread, the rest from the loop thread.
 */
final class Sleep {
    private static final int AWAKE = 0;
    private static final int POLLING = 1; // blocked in IoDriver.poll: wake with io.wakeup()
    private static final int PARKED = 2;  // parked for less than the backend's resolution: unpark
    private static final VarHandle STATE;
    /** How long a loop that other threads just fed looks for more before it sleeps. */
    static final long LINGER_NANOS = 4_000;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Sleep.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IoDriver io;
    private final TimerQueue timers;
    private final LoopClock clock;
    private final long ioResolutionNanos;
    private volatile int state;
    /** The thread that parked; written before the CAS that publishes PARKED. */
    private volatile Thread parked;

    Sleep(IoDriver io, TimerQueue timers, LoopClock clock) {
        this.io = io;
        this.timers = timers;
        this.clock = clock;
        this.ioResolutionNanos = Math.max(1, io.resolutionNanos());
    }

    /**
     * Phase 2 with nothing ready: publishes "polling", then takes the last look. The timeout is 0
     * if {@code workArrived} (the inbox, a stop, an interrupt) or a timer is due; else until the
     * earliest timer; else forever.
     *
     * <p>If other threads {@code fed} the loop since the last look, it first keeps looking for up
     * to {@value #LINGER_NANOS} ns. A producer in the middle of a stream of submissions is rarely
     * further away than that, and a sleep costs far more: the submitter's CAS and eventfd write
     * (or unpark), the loop's blocking poll and the time its thread takes to be scheduled again.
     * Work seen before "polling" is published leaves the word "awake", so a submitter racing
     * with this look pays nothing. A loop nobody feeds never lingers.
     */
    long timeout(BooleanSupplier workArrived, boolean fed) {
        if (workArrived.getAsBoolean() || (fed && linger(workArrived))) {
            return 0;
        }
        STATE.setVolatile(this, POLLING);
        long timeout = IoDriver.BLOCK_UNTIL_WOKEN;
        if (workArrived.getAsBoolean()) {
            timeout = 0;
        } else {
            long next = timers.nextDeadline();
            if (next != TimerQueue.NO_DEADLINE) {
                long now = clock.nanoTime();
                if (next <= now) {
                    timeout = 0;
                } else if (!clock.isReal()) {
                    // A virtual clock: never wait for real. It either jumps to the deadline by
                    // itself, or the loop blocks until the clock is advanced (which wakes it).
                    timeout = clock.idle(next) ? 0 : IoDriver.BLOCK_UNTIL_WOKEN;
                } else {
                    timeout = next - now;
                }
            }
        }
        if (timeout == 0) {
            state = AWAKE;
        }
        return timeout;
    }

    /**
     * Looks for work for up to {@value #LINGER_NANOS} ns of real time. No {@code onSpinWait}: a
     * hypervisor may trap a PAUSE loop (measured here: 150-200 ns per pause), and the clock read
     * between two looks already spaces them out.
     */
    private static boolean linger(BooleanSupplier workArrived) {
        long end = System.nanoTime() + LINGER_NANOS;
        do {
            if (workArrived.getAsBoolean()) {
                return true;
            }
        } while (System.nanoTime() - end < 0);
        return false;
    }

    /**
     * Phase 3: polls the backend, waiting at most {@code timeout}. Due sooner than the backend can
     * time a wait (epoll and Selector count milliseconds), it takes what I/O is ready without
     * blocking, then parks for exactly the rest while {@code stillIdle}, so the loop neither spins
     * nor oversleeps.
     */
    void poll(long timeout, BooleanSupplier stillIdle) throws Exception {
        try {
            if (timeout > 0 && timeout < ioResolutionNanos) {
                io.poll(0);
                if (stillIdle.getAsBoolean()) {
                    parked = Thread.currentThread();
                    if (STATE.compareAndSet(this, POLLING, PARKED)) {
                        LockSupport.parkNanos(this, timeout);
                    }
                }
            } else {
                io.poll(timeout);
            }
        } finally {
            if (timeout != 0) {
                state = AWAKE;
            }
        }
    }

    /** Wakes the loop if it is blocked in its poll or parked; costs nothing when it is awake. Any thread. */
    void wake() {
        int s = state;
        if (s != AWAKE && STATE.compareAndSet(this, s, AWAKE)) {
            if (s == POLLING) {
                io.wakeup();
            } else {
                LockSupport.unpark(parked);
            }
        }
    }
}
