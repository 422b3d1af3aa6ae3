package dev.loop.sim;

import dev.loop.spi.DatagramIo;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Map;
import java.util.Set;

/**
 * TCP on the simulated network. A connect travels to the target host as an event: it finds a
 * listener there (the connection waits in its accept queue and the answer travels back), finds none
 * (refused, after the round trip, as from a real host), or finds no host at that address (no route).
 */
final class SimNetIo implements NetIo {
    private static final int DEFAULT_BACKLOG = 128;
    private static final Set<SocketOption<?>> OPTIONS = Set.of(StandardSocketOptions.TCP_NODELAY,
            StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_LINGER, StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_REUSEPORT);

    private final SimDriver driver;
    private final SimNetwork net;
    private final SimHost host;
    private DatagramIo datagrams;
    private SimUnixIo unix;

    SimNetIo(SimDriver driver) {
        this.driver = driver;
        this.net = driver.net;
        this.host = driver.host;
    }

    static void checkOption(SocketOption<?> option) {
        if (!OPTIONS.contains(option)) {
            throw new UnsupportedOperationException("backend sim does not support " + option.name());
        }
    }

    @Override
    public IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        options.keySet().forEach(SimNetIo::checkOption);
        net.lock.lock();
        try {
            InetAddress a = local.getAddress();
            if (a == null) {
                throw SocketErrors.of(Call.BIND, SocketErrors.EADDRNOTAVAIL, null, local);
            }
            if (!a.isAnyLocalAddress() && !a.isLoopbackAddress() && !a.equals(host.address())) {
                throw SocketErrors.of(Call.BIND, SocketErrors.EADDRNOTAVAIL, null, local);
            }
            checkOpenFiles();
            int port = local.getPort() == 0 ? host.ephemeralPort() : local.getPort();
            if (port < 0 || (a.isAnyLocalAddress() ? host.bound(port)
                    : host.listeners.containsKey(SimHost.key(a, port)) || host.listeners.containsKey("*:" + port))) {
                throw SocketErrors.of(Call.BIND, SocketErrors.EADDRINUSE, null, local);
            }
            Object rcv = options.get(StandardSocketOptions.SO_RCVBUF);
            SimServerSocket s = new SimServerSocket(net, host, driver, ready, new InetSocketAddress(a, port),
                    backlog > 0 ? backlog : DEFAULT_BACKLOG, rcv == null ? SimSocket.DEFAULT_RCVBUF : (Integer) rcv);
            host.listeners.put(SimHost.key(a, port), s);
            host.open.add(s);
            net.trace(host.name() + " listening on " + s.local);
            return s;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        options.keySet().forEach(SimNetIo::checkOption);
        net.lock.lock();
        try {
            if (remote.isUnresolved()) {
                throw SocketErrors.of(Call.CONNECT, SocketErrors.EHOSTUNREACH, null, remote);
            }
            checkOpenFiles();
            SimSocket s = new SimSocket(net, host, driver, ready);
            for (Map.Entry<SocketOption<?>, Object> o : options.entrySet()) {
                if (o.getKey() == StandardSocketOptions.SO_RCVBUF) {
                    s.rcvbuf = (Integer) o.getValue();
                } else if (o.getKey() == StandardSocketOptions.SO_SNDBUF) {
                    s.sndbuf = (Integer) o.getValue();
                }
            }
            SimHost target = net.hostAt(remote.getAddress(), host);
            int port = host.ephemeralPort();
            if (port < 0) {
                throw SocketErrors.of(Call.CONNECT, SocketErrors.EADDRNOTAVAIL, null, remote);
            }
            InetAddress from = target == host && remote.getAddress().isLoopbackAddress()
                    ? remote.getAddress() : host.address();
            s.local = new InetSocketAddress(from, port);
            s.remote = remote;
            s.peerHost = target;
            host.usePort(port);
            host.open.add(s);
            net.trace(host.name() + " " + s.local + " connecting to " + remote);
            if (target == null) {
                net.after(Simulation.RETRANSMIT_NANOS, () -> s.failed(SocketErrors.EHOSTUNREACH));
            } else {
                net.after(net.delay(host, target), () -> syn(s, target));
            }
            return s;
        } finally {
            net.lock.unlock();
        }
    }

    /** The connect request reaches {@code target}. Under the lock. */
    private void syn(SimSocket s, SimHost target) {
        if (s.closed) {
            return;
        }
        if (net.cut(host, target)) {
            net.after(Simulation.RETRANSMIT_NANOS, () -> syn(s, target)); // lost: sent again
            return;
        }
        SimServerSocket l = target.listenerFor(s.remote.getAddress(), s.remote.getPort());
        long back = net.delay(target, host);
        if (l == null || l.closed) {
            net.after(back, () -> s.failed(SocketErrors.ECONNREFUSED));
            return;
        }
        if (l.pending.size() >= l.backlog) {
            net.after(Simulation.RETRANSMIT_NANOS, () -> syn(s, target)); // queue full: the request is dropped
            return;
        }
        SimSocket a = new SimSocket(net, target, l.driver, null);
        a.local = new InetSocketAddress(s.remote.getAddress(), s.remote.getPort());
        a.remote = s.local;
        a.peerHost = host;
        a.rcvbuf = l.rcvbuf;
        a.connected = true;
        Pipe down = Pipe.join(s, a);
        down.lastArrival = net.now() + back; // nothing the server sends arrives before its answer
        target.usePort(s.remote.getPort());
        l.pending.add(a);
        l.changed();
        net.after(back, s::established);
    }

    private void checkOpenFiles() throws IOException {
        if (host.open.size() >= host.openFileLimit) {
            throw SocketErrors.of(Call.IO, SocketErrors.EMFILE, null, null);
        }
    }

    @Override
    public dev.loop.spi.UnixIo unix() {
        if (unix == null) {
            unix = new SimUnixIo(driver);
        }
        return unix;
    }

    @Override
    public IoSocket adopt(IoSocket accepted) {
        if (!(accepted instanceof SimSocket s)) {
            throw new IllegalArgumentException("not a sim socket: " + accepted);
        }
        net.lock.lock();
        try {
            s.driver = driver;
            s.listed = false;
            s.ready = null;
            return s;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public DatagramIo datagrams() {
        if (datagrams == null) {
            datagrams = (local, options, ready) -> net.datagrams.open(driver, local, options, ready);
        }
        return datagrams;
    }
}
