package dev.loop.sim;

import dev.loop.spi.IoReady;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * UDP on one simulated network: the ports bound on each host, and the way of a datagram. A sent
 * datagram may be lost or duplicated (drawn from the seed, {@link DatagramFaults}); each copy then
 * arrives as an event after the link's delay, with its own jitter, so datagrams may overtake each
 * other. On arrival it is lost if the link is cut by then; otherwise the host hands it to the one
 * socket that owns its address and port (as the kernel chooses: a socket connected to the sender
 * first, then one bound to that address, then one bound to the wildcard), whose buffer keeps or
 * drops it. A host with no such socket answers "port unreachable", which travels back to the
 * sender. A multicast datagram reaches every socket that joined its group and owns its port, on
 * every host; a broadcast (255.255.255.255, or 127.255.255.255 on the host itself) every socket
 * bound to its port. Guarded by the network's lock.
 */
final class SimDatagrams {
    private static final int FIRST_EPHEMERAL = 32768;
    private static final int LAST_EPHEMERAL = 60999;
    private static final Set<SocketOption<?>> OPTIONS = Set.of(StandardSocketOptions.SO_REUSEADDR,
            StandardSocketOptions.SO_REUSEPORT, StandardSocketOptions.SO_BROADCAST, StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.IP_MULTICAST_IF,
            StandardSocketOptions.IP_MULTICAST_TTL, StandardSocketOptions.IP_MULTICAST_LOOP);

    private final SimNetwork net;
    /** Per host: UDP ports, a space apart from TCP's, as in the kernel. Looked up, never iterated. */
    private final Map<SimHost, Ports> ports = new HashMap<>();
    final DatagramStats.Counts counts = new DatagramStats.Counts();

    private static final class Ports {
        final Map<Integer, List<SimDatagramSocket>> bound = new HashMap<>();
        int next = FIRST_EPHEMERAL;
    }

    SimDatagrams(SimNetwork net) {
        this.net = net;
    }

    // ------------------------------------------------------------------ binding

    /** Opens a socket on {@code driver}'s host bound to {@code local} (port 0: a free ephemeral port). */
    SimDatagramSocket open(SimDriver driver, InetSocketAddress local, Map<SocketOption<?>, Object> options,
                           IoReady ready) throws IOException {
        for (SocketOption<?> o : options.keySet()) {
            if (!OPTIONS.contains(o)) {
                throw new UnsupportedOperationException("backend sim does not support " + o.name() + " on datagrams");
            }
        }
        SimHost host = driver.host;
        net.lock.lock();
        try {
            InetAddress a = local.getAddress();
            if (a == null || !bindable(a, host)) {
                throw SocketErrors.of(Call.BIND, SocketErrors.EADDRNOTAVAIL, null, local);
            }
            if (host.open.size() >= host.openFileLimit) {
                throw SocketErrors.of(Call.IO, SocketErrors.EMFILE, null, null);
            }
            Ports p = ports.computeIfAbsent(host, h -> new Ports());
            boolean reuseAddress = Boolean.TRUE.equals(options.get(StandardSocketOptions.SO_REUSEADDR));
            boolean reusePort = Boolean.TRUE.equals(options.get(StandardSocketOptions.SO_REUSEPORT));
            int port = local.getPort() == 0 ? ephemeral(p) : local.getPort();
            if (port < 0 || inUse(p, a, port, reuseAddress, reusePort)) {
                throw SocketErrors.of(Call.BIND, port < 0 ? SocketErrors.EADDRNOTAVAIL : SocketErrors.EADDRINUSE, null,
                        local);
            }
            SimDatagramSocket s = new SimDatagramSocket(net, host, driver, ready, this,
                    new InetSocketAddress(plain(a), port), reuseAddress, reusePort);
            options.forEach(s::apply);
            p.bound.computeIfAbsent(port, k -> new ArrayList<>(1)).add(s);
            host.open.add(s);
            net.trace(host.name() + " udp bound to " + s.local);
            return s;
        } finally {
            net.lock.unlock();
        }
    }

    /**
     * Whether a socket of {@code host} may bind {@code a}: the wildcard, loopback, the host's
     * address, or a multicast group (a receiver binds the group to hear it alone). The shared
     * network stands for this machine, so it also takes the addresses of this machine's interfaces.
     */
    private boolean bindable(InetAddress a, SimHost host) {
        if (a.isAnyLocalAddress() || a.isLoopbackAddress() || a.isMulticastAddress() || a.equals(host.address())) {
            return true;
        }
        if (net.simulation != null) {
            return false;
        }
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** The address without a host name, as the kernel reports a bound address (an IPv6 scope is kept). */
    private static InetAddress plain(InetAddress a) {
        if (a instanceof Inet4Address) {
            try {
                return InetAddress.getByAddress(a.getAddress());
            } catch (UnknownHostException e) {
                throw new AssertionError("four bytes are an address", e);
            }
        }
        return a;
    }

    /** Whether binding {@code a:port} clashes with a bound socket that does not share it. */
    private static boolean inUse(Ports p, InetAddress a, int port, boolean reuseAddress, boolean reusePort) {
        List<SimDatagramSocket> on = p.bound.get(port);
        if (on == null) {
            return false;
        }
        for (SimDatagramSocket s : on) {
            InetAddress b = s.local.getAddress();
            boolean overlaps = a.isAnyLocalAddress() || b.isAnyLocalAddress() || a.equals(b);
            boolean shared = (reusePort && s.reusePort) || (reuseAddress && s.reuseAddress);
            if (overlaps && !shared) {
                return true;
            }
        }
        return false;
    }

    private static int ephemeral(Ports p) {
        for (int tries = 0; tries <= LAST_EPHEMERAL - FIRST_EPHEMERAL; tries++) {
            int port = p.next++;
            if (p.next > LAST_EPHEMERAL) {
                p.next = FIRST_EPHEMERAL;
            }
            if (!p.bound.containsKey(port)) {
                return port;
            }
        }
        return -1;
    }

    /** Frees {@code s}'s port. Under the lock. */
    void unbind(SimDatagramSocket s) {
        Ports p = ports.get(s.host);
        List<SimDatagramSocket> on = p == null ? null : p.bound.get(s.local.getPort());
        if (on != null) {
            on.remove(s);
            if (on.isEmpty()) {
                p.bound.remove(s.local.getPort());
            }
        }
    }

    // ------------------------------------------------------------------ sending

    /** {@code s} sends {@code data} to {@code to}: it leaves now and arrives as events. Under the lock. */
    void send(SimDatagramSocket s, byte[] data, InetSocketAddress to) {
        counts.sent++;
        InetAddress a = to.getAddress();
        boolean multicast = a.isMulticastAddress();
        if (multicast || isBroadcast(a)) {
            boolean everyHost = multicast || !a.isLoopbackAddress();
            for (SimHost h : net.hosts()) {
                if (h == s.host ? !multicast || s.multicastLoop : everyHost) {
                    travel(s, h, data, to, true);
                }
            }
            return;
        }
        SimHost target = net.hostAt(a, s.host);
        if (target == null) {
            counts.noRoute++;
            trace(s, to, "has no host: lost");
            return;
        }
        travel(s, target, data, to, false);
    }

    /** The copies of one datagram from {@code s} on their way to {@code target}, after the faults drew. */
    private void travel(SimDatagramSocket s, SimHost target, byte[] data, InetSocketAddress to, boolean group) {
        int copies = 1;
        if (net.simulation != null) {
            DatagramFaults faults = net.simulation.faults().datagrams;
            if (faults.lose(s.host, target)) {
                counts.lost++;
                trace(s, to, "lost");
                return;
            }
            if (faults.duplicate(s.host, target)) {
                counts.duplicated++;
                trace(s, to, "duplicated");
                copies = 2;
            }
        }
        InetSocketAddress from = s.sourceFor(target, to.getAddress());
        for (int i = 0; i < copies; i++) {
            net.after(net.delay(s.host, target), () -> arrive(s, target, data, to, from, group));
        }
    }

    /** A copy reaches {@code target}, unless the link was cut meanwhile. */
    private void arrive(SimDatagramSocket s, SimHost target, byte[] data, InetSocketAddress to,
                        InetSocketAddress from, boolean group) {
        if (net.cut(s.host, target)) {
            counts.cut++;
            trace(s, to, "lost in a partition");
            return;
        }
        if (group) {
            arriveAtGroup(target, data, to, from);
            return;
        }
        SimDatagramSocket r = owner(target, to, from);
        if (r == null) {
            counts.unreachable++;
            trace(s, to, "found no socket: port unreachable");
            if (s.remote != null && !s.closed) {
                // the ICMP answer goes back over the same network, and is lost in a partition like the rest
                net.after(net.delay(target, s.host), () -> {
                    if (!net.cut(target, s.host)) {
                        s.portUnreachable();
                    }
                });
            }
            return;
        }
        deliver(r, data, from, to);
    }

    private void deliver(SimDatagramSocket r, byte[] data, InetSocketAddress from, InetSocketAddress to) {
        if (r.arrive(data, from)) {
            counts.delivered++;
        } else {
            counts.overflowed++;
            if (net.simulation != null && net.simulation.tracing()) {
                net.trace(r.host.name() + " udp " + from + " -> " + to + ": receive buffer full, dropped");
            }
        }
    }

    /** A multicast or broadcast copy: every socket on {@code target} that owns its port (and joined its group) gets it. */
    private void arriveAtGroup(SimHost target, byte[] data, InetSocketAddress to, InetSocketAddress from) {
        Ports p = ports.get(target);
        List<SimDatagramSocket> on = p == null ? null : p.bound.get(to.getPort());
        if (on == null) {
            return; // nobody listens: a group datagram gets no answer
        }
        InetAddress a = to.getAddress();
        boolean multicast = a.isMulticastAddress();
        for (int i = 0; i < on.size(); i++) {
            SimDatagramSocket r = on.get(i);
            InetAddress b = r.local.getAddress();
            if (!r.closed && (b.isAnyLocalAddress() || sameAddress(a, b)) && (!multicast || indexOf(r.groups, a) >= 0)
                    && (r.remote == null || r.remote.equals(from))) {
                deliver(r, data, from, to);
            }
        }
    }

    /**
     * The socket of {@code host} a datagram for {@code to} from {@code from} goes to, as the kernel
     * scores them: connected to that sender, then bound to that address, then to the wildcard; a
     * socket connected to someone else is no candidate. Among equals, sockets sharing the port with
     * {@code SO_REUSEPORT} split senders by a hash of the sender; otherwise the last bound wins.
     */
    private SimDatagramSocket owner(SimHost host, InetSocketAddress to, InetSocketAddress from) {
        Ports p = ports.get(host);
        List<SimDatagramSocket> on = p == null ? null : p.bound.get(to.getPort());
        if (on == null) {
            return null;
        }
        int best = -1;
        int ties = 0;
        boolean allReusePort = true;
        for (int i = 0; i < on.size(); i++) {
            int score = score(on.get(i), to, from);
            if (score > best) {
                best = score;
                ties = 1;
                allReusePort = on.get(i).reusePort;
            } else if (score == best && score >= 0) {
                ties++;
                allReusePort &= on.get(i).reusePort;
            }
        }
        if (best < 0) {
            return null;
        }
        int pick = ties == 1 ? 0 : allReusePort ? Math.floorMod(from.hashCode(), ties) : ties - 1;
        for (int i = 0; i < on.size(); i++) {
            if (score(on.get(i), to, from) == best && pick-- == 0) {
                return on.get(i);
            }
        }
        throw new AssertionError("a best-scored socket was counted but not found");
    }

    private static int score(SimDatagramSocket s, InetSocketAddress to, InetSocketAddress from) {
        if (s.closed) {
            return -1;
        }
        InetAddress b = s.local.getAddress();
        int score;
        if (sameAddress(b, to.getAddress())) {
            score = 2;
        } else if (b.isAnyLocalAddress()) {
            score = 1;
        } else {
            return -1;
        }
        if (s.remote != null) {
            if (!s.remote.equals(from)) {
                return -1; // the kernel drops what a connected socket's peer did not send
            }
            score += 4;
        }
        return score;
    }

    // ------------------------------------------------------------------ addresses

    /** 255.255.255.255, or the loopback network's broadcast, which stays on the host. */
    static boolean isBroadcast(InetAddress a) {
        if (!(a instanceof Inet4Address)) {
            return false;
        }
        byte[] b = a.getAddress();
        return (b[0] == -1 || b[0] == 127) && b[1] == -1 && b[2] == -1 && b[3] == -1;
    }

    /** Equal addresses; an IPv6 scope does not tell them apart (the JDK's equality, which copies nothing). */
    private static boolean sameAddress(InetAddress a, InetAddress b) {
        return a.equals(b);
    }

    static int indexOf(List<InetAddress> groups, InetAddress group) {
        for (int i = 0; i < groups.size(); i++) {
            if (sameAddress(groups.get(i), group)) {
                return i;
            }
        }
        return -1;
    }

    private void trace(SimDatagramSocket s, InetSocketAddress to, String what) {
        if (net.simulation != null && net.simulation.tracing()) {
            net.trace(s.host.name() + " udp " + s.local + " -> " + to + " " + what);
        }
    }

    DatagramStats stats() {
        net.lock.lock();
        try {
            return counts.snapshot();
        } finally {
            net.lock.unlock();
        }
    }
}
