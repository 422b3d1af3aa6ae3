package dev.loop.sim;

import dev.loop.Loop;
import java.util.concurrent.locks.Condition;

/**
 * One loop of a simulation and its turn: the loop runs on a thread of its own, but only while the
 * simulation has given it the turn. Each poll of its driver hands the turn back ({@link #pause}),
 * saying when the loop wants it again (now, at its next timer, or when I/O or a wakeup arrives), and
 * blocks until the scheduler gives it back. So only one thread of a simulation runs at any time,
 * and the order of everything is the scheduler's, that is, the seed's. Guarded by the network's lock.
 */
final class Runner {
    private final Simulation simulation;
    final SimHost host;
    private final SimDriver driver;
    final SimClock clock;
    private final Condition turnGiven;
    Loop loop;
    Thread thread;
    boolean turn;
    boolean paused;
    private boolean exited;
    /** When the loop wants the turn back at the latest, in simulation time; {@code Long.MAX_VALUE}: only on I/O. */
    long wakeAt = Long.MAX_VALUE;
    /** The loop's next timer as the clock last heard it ({@link SimClock#idle}), in simulation time. */
    long deadline = Long.MAX_VALUE;
    Throwable failure;

    Runner(Simulation simulation, SimHost host) {
        this.simulation = simulation;
        this.host = host;
        this.clock = new SimClock(simulation, host, this);
        this.driver = new SimDriver(simulation.network(), host, this);
        this.turnGiven = simulation.network().lock.newCondition();
    }

    Simulation simulation() {
        return simulation;
    }

    SimDriver driver() {
        return driver;
    }

    Loop loop() {
        return loop;
    }

    boolean exited() {
        simulation.network().lock.lock();
        try {
            return exited;
        } finally {
            simulation.network().lock.unlock();
        }
    }

    boolean exitedLocked() {
        return exited;
    }

    /** Whether the scheduler may give this loop the turn now. Under the lock. */
    boolean runnable(long now) {
        return !exited && paused && (wakeAt <= now || driver.woken || driver.anyDue());
    }

    /** The driver is about to wait: hand the turn back and wait for it. Loop thread. */
    void pause(long timeoutNanos) {
        var lock = simulation.network().lock;
        lock.lock();
        try {
            long now = simulation.now();
            wakeAt = timeoutNanos == 0 ? now : timeoutNanos > 0 ? now + timeoutNanos : deadline;
            deadline = Long.MAX_VALUE;
            turn = false;
            paused = true;
            simulation.signalScheduler();
            while (!turn) {
                turnGiven.awaitUninterruptibly();
            }
            paused = false;
        } finally {
            lock.unlock();
        }
    }

    /** Gives this loop the turn. Under the lock, on the scheduler's thread. */
    void give() {
        turn = true;
        paused = false;
        turnGiven.signal();
    }

    /** The loop's thread ends. */
    void exit(Throwable failure) {
        var lock = simulation.network().lock;
        lock.lock();
        try {
            this.failure = failure;
            exited = true;
            paused = false;
            simulation.signalScheduler();
        } finally {
            lock.unlock();
        }
    }
}
