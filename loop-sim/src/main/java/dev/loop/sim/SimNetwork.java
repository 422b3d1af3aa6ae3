package dev.loop.sim;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-memory network: hosts by address, and, in a simulation, the events in flight (segments,
 * connection attempts, resets) ordered by virtual time. Every state change of every simulated socket
 * happens under {@link #lock}, so loops on several threads (the shared network of the suites) see
 * one consistent network; in a simulation only one thread runs at a time anyway.
 */
final class SimNetwork {
    private static final SimNetwork SHARED = new SimNetwork(null);

    final ReentrantLock lock = new ReentrantLock();
    /** Null on the shared network: no scheduler, real time, every delivery at once. */
    final Simulation simulation;
    private final Map<InetAddress, SimHost> byAddress = new HashMap<>();
    private final List<SimHost> hosts = new ArrayList<>();
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long sequence;
    private final SimHost local;
    /** UDP on this network: ports per host, datagrams on their way, their counts. */
    final SimDatagrams datagrams = new SimDatagrams(this);

    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
        }
    }

    SimNetwork(Simulation simulation) {
        this.simulation = simulation;
        this.local = simulation == null ? addHost("localhost", loopback()) : null;
    }

    static SimNetwork shared() {
        return SHARED;
    }

    /** The shared network's one host, which owns 127.0.0.1 (and every loopback address). */
    SimHost localHost() {
        return local;
    }

    SimHost addHost(String name, InetAddress address) {
        lock.lock();
        try {
            if (byAddress.containsKey(address)) {
                throw new IllegalArgumentException("address " + address.getHostAddress() + " is already host "
                        + byAddress.get(address).name());
            }
            SimHost h = new SimHost(this, name, address);
            byAddress.put(address, h);
            hosts.add(h);
            return h;
        } finally {
            lock.unlock();
        }
    }

    List<SimHost> hosts() {
        return hosts;
    }

    /** The host {@code address} names as seen from {@code from}: loopback and wildcard are {@code from} itself. */
    SimHost hostAt(InetAddress address, SimHost from) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return from;
        }
        return byAddress.get(address);
    }

    long now() {
        return simulation == null ? 0 : simulation.now();
    }

    /** Runs {@code action} after {@code delayNanos} of virtual time; on the shared network, now. Under the lock. */
    void after(long delayNanos, Runnable action) {
        if (simulation == null) {
            action.run();
        } else {
            events.add(new Event(simulation.now() + Math.max(0, delayNanos), sequence++, action));
        }
    }

    /** Runs {@code action} at virtual time {@code at} (not before now). Under the lock. */
    void at(long at, Runnable action) {
        if (simulation == null) {
            action.run();
        } else {
            events.add(new Event(Math.max(at, simulation.now()), sequence++, action));
        }
    }

    /** When the next event is due, or {@code Long.MAX_VALUE}. Under the lock. */
    long nextEventAt() {
        Event e = events.peek();
        return e == null ? Long.MAX_VALUE : e.at;
    }

    /** Runs every event due at or before {@code now}, in order. Under the lock. */
    void runDue(long now) {
        Event e;
        while ((e = events.peek()) != null && e.at <= now) {
            events.poll();
            e.action.run();
        }
    }

    /** One-way delay of a segment from {@code a} to {@code b}; 0 on the shared network. */
    long delay(SimHost a, SimHost b) {
        return simulation == null ? 0 : simulation.faults().delay(a, b);
    }

    /** Whether segments from {@code a} to {@code b} queue behind a bandwidth limit. */
    boolean limited(SimHost a, SimHost b) {
        return simulation != null && simulation.faults().limited(a, b);
    }

    /** When the last of {@code bytes} sent now from {@code a} to {@code b} has left {@code a} ({@link Faults#sent}). */
    long sent(SimHost a, SimHost b, long bytes) {
        return simulation == null ? 0 : simulation.faults().sent(a, b, bytes, simulation.now());
    }

    /** Whether segments from {@code a} to {@code b} are lost now (a partition). */
    boolean cut(SimHost a, SimHost b) {
        return simulation != null && simulation.faults().cut(a, b);
    }

    void trace(String what) {
        if (simulation != null) {
            simulation.trace(what);
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new AssertionError("a literal address cannot be unknown", e);
        }
    }
}
