package dev.loop.sim;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
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
    /** Latency added to every link by spikes in progress ({@link RandomFaults}). */
    private long spikeNanos;
    /** Bytes per second of every link between two hosts; 0: unlimited. */
    private long bandwidth;
    /** Links with a bandwidth of their own, by direction ({@code "a->b"}). */
    private final Map<String, Long> linkBandwidth = new HashMap<>();
    /** When each limited link has sent what it was given so far, by direction. */
    private final Map<String, Long> linkBusyUntil = new HashMap<>();

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

    /**
     * Starts drawing faults at random from the seed, as {@code plan} says: partitions, resets,
     * latency spikes, hosts stopped and restarted. Every fault drawn is a line of the trace.
     */
    public Faults random(RandomFaults plan) {
        plan.start(simulation);
        return this;
    }

    /** Adds {@code nanos} (negative: removes) to every link's latency: a spike begins or ends. */
    void spike(long nanos) {
        locked(() -> spikeNanos = Math.max(0, spikeNanos + nanos));
    }

    /** Ends every spike in progress. */
    void endSpikes() {
        locked(() -> spikeNanos = 0);
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

    /**
     * Limits every link between two hosts to {@code bytesPerSecond} in each direction (0: no
     * limit): a write of N bytes takes N / bandwidth to leave, after what the link carries already,
     * and arrives its latency later. The window still bounds what is in flight.
     */
    public Faults bandwidth(long bytesPerSecond) {
        checkBandwidth(bytesPerSecond);
        locked(() -> bandwidth = bytesPerSecond);
        simulation.trace("bandwidth " + bytesPerSecond + " B/s on every link");
        return this;
    }

    /** Limits the link between {@code a} and {@code b} to {@code bytesPerSecond} each way (0: no limit). */
    public Faults bandwidth(SimHost a, SimHost b, long bytesPerSecond) {
        checkBandwidth(bytesPerSecond);
        locked(() -> {
            linkBandwidth.put(key(a, b), bytesPerSecond);
            linkBandwidth.put(key(b, a), bytesPerSecond);
        });
        simulation.trace("bandwidth " + bytesPerSecond + " B/s " + a.name() + " <-> " + b.name());
        return this;
    }

    private static void checkBandwidth(long bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("a bandwidth is 0 (unlimited) or positive, not " + bytesPerSecond);
        }
    }

    /** Whether segments from {@code a} to {@code b} queue behind a bandwidth limit. Under the lock. */
    boolean limited(SimHost a, SimHost b) {
        return a != b && (bandwidth > 0 || !linkBandwidth.isEmpty() && linkBandwidth.getOrDefault(key(a, b), 0L) > 0);
    }

    /**
     * Puts {@code bytes} on the link from {@code a} to {@code b} at {@code now}: when the last of
     * them has left {@code a} (now on an unlimited link). Under the lock.
     */
    long sent(SimHost a, SimHost b, long bytes, long now) {
        if (!limited(a, b)) {
            return now;
        }
        String k = key(a, b);
        long rate = linkBandwidth.getOrDefault(k, bandwidth);
        if (rate <= 0) {
            return now;
        }
        long start = Math.max(now, linkBusyUntil.getOrDefault(k, 0L));
        long done = start + Math.ceilDiv(bytes * 1_000_000_000L, rate); // bytes: one segment, far from overflowing
        linkBusyUntil.put(k, done);
        return done;
    }

    long delay(SimHost a, SimHost b) {
        if (a == b) {
            return loopbackNanos;
        }
        return latencyNanos + spikeNanos + (jitterNanos == 0 ? 0 : simulation.random().nextLong(jitterNanos + 1));
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
