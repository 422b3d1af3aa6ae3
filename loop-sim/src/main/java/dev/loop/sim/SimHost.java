package dev.loop.sim;

import dev.loop.Loop;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A machine on the simulated network: a name, an address, its listening ports and open sockets,
 * and, in a {@link Simulation}, the loop that runs its program. Stopping it closes its loop (its
 * connections are reset, as a crashed machine's are once it answers again); restarting opens a new
 * loop and runs the program again.
 */
public final class SimHost {
    private static final int FIRST_EPHEMERAL = 32768;
    private static final int LAST_EPHEMERAL = 60999;

    private final SimNetwork net;
    private final String name;
    private final InetAddress address;
    /** Listening sockets by address and port ({@code "*:80"} for a wildcard). */
    final Map<String, SimServerSocket> listeners = new HashMap<>();
    /** Unix domain listeners by path ({@code "@name"} for an abstract name): the host's own namespace. */
    final Map<String, SimServerSocket> unixNames = new HashMap<>();
    /** Process id, user id and group id of the host's program: what a Unix domain peer's credentials read. */
    long pid;
    long uid;
    long gid;
    /** Ports in use by connections (an ephemeral port is not handed out twice while in use). */
    private final Map<Integer, Integer> portUse = new HashMap<>();
    /** Open sockets, in opening order: what a stop resets, what the open-file limit counts. */
    final Set<SimHandle> open = new LinkedHashSet<>();
    private int nextPort = FIRST_EPHEMERAL;
    int openFileLimit = Integer.MAX_VALUE;
    long skewNanos;
    Consumer<Loop> program;
    Runner runner;

    SimHost(SimNetwork net, String name, InetAddress address) {
        this.net = net;
        this.name = name;
        this.address = address;
        long[] ids = net.simulation == null ? ProcessIds.ofThisProcess() : ProcessIds.simulated(net.hosts().size());
        this.pid = ids[0];
        this.uid = ids[1];
        this.gid = ids[2];
    }

    public String name() {
        return name;
    }

    /** The host's address: where other hosts connect to reach it. */
    public InetAddress address() {
        return address;
    }

    /** The loop running this host's program now (a new one after each restart). */
    public Loop loop() {
        Runner r = runner;
        if (r == null) {
            throw new IllegalStateException("host " + name + " runs no loop (stopped, or on the shared network)");
        }
        return r.loop();
    }

    /** Whether the host's loop is running (not stopped). */
    public boolean isUp() {
        Runner r = runner;
        return r != null && !r.exited();
    }

    /** Stops the host now: its loop stops and closes, and its sockets with it. Scheduler thread only. */
    public void stop() {
        net.simulation.stop(this);
    }

    /** Starts the host again, with a new loop running its program from the beginning. Scheduler thread only. */
    public void restart() {
        net.simulation.start(this);
    }

    /** Makes this host's clock run {@code skew} ahead of the simulation's (behind when negative). */
    public void skew(Duration skew) {
        this.skewNanos = skew.toNanos();
    }

    /** At most {@code limit} sockets open at once; more fail with "Too many open files", as a process at its limit. */
    public void openFileLimit(int limit) {
        this.openFileLimit = limit;
    }

    /**
     * The process id, user id and group id a Unix domain peer on this host reads as its credentials
     * (by default 1000 plus the host's number, 1001 for the host at 10.0.0.1, and 1000 for both
     * ids; on the shared network, this JVM's own).
     */
    public void processIds(long pid, long uid, long gid) {
        net.lock.lock();
        try {
            this.pid = pid;
            this.uid = uid;
            this.gid = gid;
        } finally {
            net.lock.unlock();
        }
    }

    /** A free ephemeral port (under the network's lock). */
    int ephemeralPort() {
        for (int tries = 0; tries <= LAST_EPHEMERAL - FIRST_EPHEMERAL; tries++) {
            int p = nextPort++;
            if (nextPort > LAST_EPHEMERAL) {
                nextPort = FIRST_EPHEMERAL;
            }
            if (!bound(p) && !portUse.containsKey(p)) {
                return p;
            }
        }
        return -1;
    }

    static String key(InetAddress a, int port) {
        return (a.isAnyLocalAddress() ? "*" : a.getHostAddress()) + ":" + port;
    }

    /** Whether any listener has {@code port}. */
    boolean bound(int port) {
        String suffix = ":" + port;
        for (String k : listeners.keySet()) {
            if (k.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    /** The listener a connect to {@code a:port} reaches: bound to that address, or to the wildcard. */
    SimServerSocket listenerFor(InetAddress a, int port) {
        SimServerSocket l = listeners.get(key(a, port));
        return l != null ? l : listeners.get("*:" + port);
    }

    void usePort(int port) {
        portUse.merge(port, 1, Integer::sum);
    }

    void releasePort(int port) {
        portUse.computeIfPresent(port, (k, n) -> n == 1 ? null : n - 1);
    }

    @Override
    public String toString() {
        return name + "/" + address.getHostAddress();
    }
}
