package dev.loop.sim;

import dev.loop.spi.IoDriver;
import dev.loop.spi.IoReady;
import dev.loop.spi.NetIo;
import dev.loop.spi.Readiness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The I/O side of one loop on the simulated network. A poll looks at the state of every socket
 * that asked for readiness and reports what is ready; on the shared network it then waits on a
 * condition of the network's lock (a state change or a wakeup signals it), in a simulation it
 * first hands the turn back to the simulation ({@link Runner#pause}) and is resumed when the
 * scheduler picks this loop.
 */
final class SimDriver implements IoDriver {
    final SimNetwork net;
    final SimHost host;
    final Runner runner;
    private final Condition changed;
    private final List<SimHandle> handles = new ArrayList<>();
    private final List<SimHandle> dueHandles = new ArrayList<>();
    private int[] dueOps = new int[16];
    private Readiness.Failures failures = Readiness.LOGGED;
    private SimNetIo netIo;
    /** A wakeup or a state change since the last poll looked. */
    boolean woken;
    private boolean closed;

    SimDriver(SimNetwork net, SimHost host, Runner runner) {
        this.net = net;
        this.host = host;
        this.runner = runner;
        this.changed = net.lock.newCondition();
    }

    @Override
    public int poll(long timeoutNanos) {
        if (runner != null) {
            runner.pause(timeoutNanos);
        }
        int n;
        net.lock.lock();
        try {
            n = collect();
            if (runner == null && n == 0 && timeoutNanos != 0) {
                long left = timeoutNanos;
                while (n == 0 && !woken && !closed) {
                    if (timeoutNanos < 0) {
                        changed.awaitUninterruptibly();
                    } else {
                        if (left <= 0) {
                            break;
                        }
                        try {
                            left = changed.awaitNanos(left);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                    }
                    n = collect();
                }
            }
            woken = false;
        } finally {
            net.lock.unlock();
        }
        // outside the lock: a receiver only records bits, but it is the user's side of the line
        for (int i = 0; i < n; i++) {
            SimHandle h = dueHandles.get(i);
            Readiness.deliver(h.ready, dueOps[i], h, failures);
        }
        dueHandles.clear();
        return n;
    }

    /** Lists what is due in {@link #dueHandles}, dropping closed handles. Under the lock. */
    private int collect() {
        dueHandles.clear();
        int size = handles.size();
        // in a simulation, which ready socket comes first is the seed's choice
        int start = runner == null || size == 0 ? 0 : runner.simulation().random().nextInt(size);
        for (int k = 0; k < size; k++) {
            SimHandle h = handles.get((start + k) % size);
            int ops = h.due();
            if (ops != 0) {
                if (dueHandles.size() == dueOps.length) {
                    dueOps = java.util.Arrays.copyOf(dueOps, dueOps.length * 2);
                }
                dueOps[dueHandles.size()] = ops;
                dueHandles.add(h);
            }
        }
        int kept = 0; // drops closed and adopted handles in place: no iterator or lambda per poll
        for (int k = 0; k < size; k++) {
            SimHandle h = handles.get(k);
            if (h.closed || h.driver != this) {
                h.listed = h.driver != this && h.listed;
            } else {
                handles.set(kept++, h);
            }
        }
        if (kept < size) {
            handles.subList(kept, size).clear();
        }
        return dueHandles.size();
    }

    /** Whether anything is ready to report: the scheduler's question. Under the lock. */
    boolean anyDue() {
        for (SimHandle h : handles) {
            if (h.due() != 0) {
                return true;
            }
        }
        return false;
    }

    void add(SimHandle h) {
        handles.add(h);
        h.listed = true;
    }

    /** A socket of this driver changed. Under the lock. */
    void changed() {
        changed.signal();
    }

    @Override
    public void wakeup() {
        net.lock.lock();
        try {
            woken = true;
            changed.signal();
            if (runner != null) {
                runner.simulation().signalScheduler();
            }
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public long resolutionNanos() {
        return TimeUnit.MICROSECONDS.toNanos(1);
    }

    @Override
    public void reportFailuresTo(Readiness.Failures failures) {
        this.failures = failures;
    }

    @Override
    public NetIo net() {
        if (netIo == null) {
            netIo = new SimNetIo(this);
        }
        return netIo;
    }

    @Override
    public void close() {
        List<SimHandle> mine;
        net.lock.lock();
        try {
            closed = true;
            mine = new ArrayList<>();
            for (SimHandle h : host.open) {
                if (h.driver == this) {
                    mine.add(h);
                }
            }
        } finally {
            net.lock.unlock();
        }
        for (SimHandle h : mine) {
            if (h instanceof SimSocket s) {
                s.close();
            } else if (h instanceof SimServerSocket s) {
                s.close();
            } else if (h instanceof SimDatagramSocket s) {
                s.close();
            }
        }
    }

    @Override
    public String toString() {
        return "SimDriver[" + host + "]";
    }

    static int bits(boolean read, boolean write) {
        return (read ? IoReady.READ : 0) | (write ? IoReady.WRITE : 0);
    }
}
