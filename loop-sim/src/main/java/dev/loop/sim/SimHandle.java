package dev.loop.sim;

import dev.loop.spi.IoReady;

/**
 * What a simulated socket and a simulated listener share: the driver that reports them, the
 * receiver, and the interest. Readiness is computed from the socket's state when the driver polls
 * (level-triggered by construction), so a state change only has to wake the driver.
 * All state is guarded by the network's lock.
 */
abstract class SimHandle {
    final SimNetwork net;
    final SimHost host;
    SimDriver driver;
    IoReady ready;
    boolean wantRead;
    boolean wantWrite;
    boolean closed;
    /** Whether the driver's list holds this handle. */
    boolean listed;

    SimHandle(SimNetwork net, SimHost host, SimDriver driver, IoReady ready) {
        this.net = net;
        this.host = host;
        this.driver = driver;
        this.ready = ready;
    }

    /** {@link IoReady#READ} and {@link IoReady#WRITE} as the state stands. Under the lock. */
    abstract int readyOps();

    /** What to report now: the ready directions that are asked for. Under the lock. */
    final int due() {
        if (closed || ready == null) {
            return 0;
        }
        int mask = (wantRead ? IoReady.READ : 0) | (wantWrite ? IoReady.WRITE : 0);
        return mask == 0 ? 0 : readyOps() & mask;
    }

    public final void interest(boolean read, boolean write) {
        net.lock.lock();
        try {
            if (closed) {
                return;
            }
            wantRead = read;
            wantWrite = write;
            if ((read || write) && !listed && driver != null) {
                driver.add(this);
            }
            changed();
        } finally {
            net.lock.unlock();
        }
    }

    /** Tells the driver the state changed: it polls again. Under the lock. */
    final void changed() {
        if (driver != null) {
            driver.changed();
        }
    }

    public final boolean isOpen() {
        net.lock.lock();
        try {
            return !closed;
        } finally {
            net.lock.unlock();
        }
    }
}
