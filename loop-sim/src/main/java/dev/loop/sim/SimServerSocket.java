package dev.loop.sim;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;

/**
 * A listening socket on a simulated host: connections the network completed wait in a queue of at
 * most {@code backlog}; a connection attempt that finds it full is dropped and tried again, as a
 * SYN is retransmitted, so the connecting side waits rather than fails.
 */
final class SimServerSocket extends SimHandle implements IoServerSocket {
    final InetSocketAddress local;
    final int backlog;
    final int rcvbuf;
    final ArrayDeque<SimSocket> pending = new ArrayDeque<>();
    /** A Unix domain listener's name in its host's namespace ({@link SimUnixIo}), or null for TCP. */
    String unixName;
    /** A Unix domain listener's path, or null (TCP, or an abstract name). */
    SocketAddress unixLocal;

    SimServerSocket(SimNetwork net, SimHost host, SimDriver driver, IoReady ready, InetSocketAddress local,
                    int backlog, int rcvbuf) {
        super(net, host, driver, ready);
        this.local = local;
        this.backlog = backlog;
        this.rcvbuf = rcvbuf;
    }

    @Override
    int readyOps() {
        return pending.isEmpty() ? 0 : IoReady.READ;
    }

    @Override
    public IoSocket accept() throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new java.nio.channels.ClosedChannelException();
            }
            SimSocket s = pending.peek();
            if (s == null) {
                return null;
            }
            if (host.open.size() >= host.openFileLimit) {
                throw SocketErrors.of(Call.IO, SocketErrors.EMFILE, null, null); // stays queued, as in the kernel
            }
            pending.poll();
            s.driver = driver;
            host.open.add(s);
            return s;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public SocketAddress localAddress() {
        return unixName != null ? unixLocal : local;
    }

    @Override
    public void close() {
        net.lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            host.open.remove(this);
            if (unixName != null) {
                host.unixNames.remove(unixName, this); // the name is free again: nothing is left behind
            } else {
                host.listeners.remove(SimHost.key(local.getAddress(), local.getPort()), this);
            }
            for (SimSocket s : pending) {
                s.closed = true;
                s.in.discard();
                s.resetPeer(); // connections nobody accepted are reset
            }
            pending.clear();
            net.trace(host.name() + " stopped listening on " + (unixName != null ? "unix " + unixName : local));
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "SimServerSocket[" + (unixName != null ? unixName : local) + "]";
    }
}
