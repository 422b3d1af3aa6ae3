package dev.loop.sim;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * The network's conditions in a simulation: latency and jitter (drawn from the seed), which
 * links are cut, and the loss and duplication of datagrams (drawn from the seed). Changed from the test's thread between runs, or from a script the simulation runs
 * at a given time ({@link Simulation#at}). Guarded by the network's lock.
 */
public final class Faults {
    private final Simulation simulation;
    private long latencyNanos = Duration.ofMillis(1).toNanos();
    private long jitterNanos = Duration.ofMillis(1).toNanos();
    private long loopbackNanos = Duration.ofMillis(0).toNanos() + 20_000;
    private final Set<String> cut = new HashSet<>();
    final DatagramFaults datagrams;

    Faults(Simulation simulation) {
        this.simulation = simulation;
        this.datagrams = new DatagramFaults(simulation);
    }

    /** One-way delay between two hosts: {@code latency} plus up to {@code jitter}, drawn from the seed. */
    public Faults latency(Duration latency, Duration jitter) {
        locked(() -> {
            latencyNanos = latency.toNanos();
            jitterNanos = jitter.toNanos();
        });
        return this;
    }

    /** Cuts both directions between {@code a} and {@code b}: segments are lost and sent again until healed. */
    public Faults partition(SimHost a, SimHost b) {
        locked(() -> {
            cut.add(key(a, b));
            cut.add(key(b, a));
        });
        simulation.trace("partition " + a.name() + " | " + b.name());
        return this;
    }

    /** Cuts {@code host} off from every other host. */
    public Faults isolate(SimHost host) {
        for (SimHost other : simulation.network().hosts()) {
            if (other != host) {
                partition(host, other);
            }
        }
        return this;
    }

    /** Heals the link between {@code a} and {@code b}. */
    public Faults heal(SimHost a, SimHost b) {
        locked(() -> {
            cut.remove(key(a, b));
            cut.remove(key(b, a));
        });
        simulation.trace("heal " + a.name() + " | " + b.name());
        return this;
    }

    /** Heals every link. */
    public Faults healAll() {
        locked(cut::clear);
        simulation.trace("heal all");
        return this;
    }

    /** Resets every connection between {@code a} and {@code b} now: both ends read "Connection reset". */
    public Faults reset(SimHost a, SimHost b) {
        locked(() -> {
            for (SimHandle h : a.open.toArray(new SimHandle[0])) {
                if (h instanceof SimSocket s && s.connected && s.peerHost == b) {
                    s.resetBothNow();
                }
            }
        });
        simulation.trace("reset " + a.name() + " <-> " + b.name());
        return this;
    }

    /** Loses each datagram between two hosts with probability {@code rate}, drawn from the seed; 0 stops it. */
    public Faults datagramLoss(double rate) {
        locked(() -> datagrams.loss(rate));
        return this;
    }

    /** Loses each datagram between {@code a} and {@code b} (both ways) with probability {@code rate}, overriding the rate for all. */
    public Faults datagramLoss(SimHost a, SimHost b, double rate) {
        locked(() -> datagrams.loss(a, b, rate));
        return this;
    }

    /** Delivers each datagram between two hosts twice with probability {@code rate}, each copy with its own delay. */
    public Faults datagramDuplication(double rate) {
        locked(() -> datagrams.duplication(rate));
        return this;
    }

    /** Delivers each datagram between {@code a} and {@code b} (both ways) twice with probability {@code rate}. */
    public Faults datagramDuplication(SimHost a, SimHost b, double rate) {
        locked(() -> datagrams.duplication(a, b, rate));
        return this;
    }

    long delay(SimHost a, SimHost b) {
        if (a == b) {
            return loopbackNanos;
        }
        return latencyNanos + (jitterNanos == 0 ? 0 : simulation.random().nextLong(jitterNanos + 1));
    }

    boolean cut(SimHost a, SimHost b) {
        return a != b && !cut.isEmpty() && cut.contains(key(a, b));
    }

    private static String key(SimHost a, SimHost b) {
        return a.name() + "->" + b.name();
    }

    private void locked(Runnable r) {
        var lock = simulation.network().lock;
        lock.lock();
        try {
            r.run();
        } finally {
            lock.unlock();
        }
    }
}
