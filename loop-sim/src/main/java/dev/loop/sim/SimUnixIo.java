package dev.loop.sim;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.util.Map;

/**
 * Unix domain stream sockets on a simulated host. A path (or a Linux abstract name, kept apart by
 * an {@code @} in front) is a name in the host's own namespace, not a file: it exists from the
 * listen until the listener closes, and only loops of that host reach it. The connection is the
 * TCP one ({@link SimSocket} over two {@link Pipe}s) with what a Unix socket does differently: it
 * connects at once, its bytes cross no link (no latency, bandwidth or partition), and a write to
 * a peer that is gone fails with "Broken pipe" instead of drawing a reset. Failures carry the texts
 * the kernel's backends give: "No such file or directory" for a path nobody listens on, "Address
 * already in use" for a name taken.
 */
final class SimUnixIo implements UnixIo {
    private static final int DEFAULT_BACKLOG = 128;

    private final SimDriver driver;
    private final SimNetwork net;
    private final SimHost host;

    SimUnixIo(SimDriver driver) {
        this.driver = driver;
        this.net = driver.net;
        this.host = driver.host;
    }

    private static void checkOptions(Map<SocketOption<?>, Object> options) {
        for (SocketOption<?> o : options.keySet()) {
            if (o != StandardSocketOptions.SO_SNDBUF && o != StandardSocketOptions.SO_RCVBUF) {
                throw new UnsupportedOperationException("a Unix domain socket takes SO_SNDBUF and SO_RCVBUF only, not "
                        + o.name());
            }
        }
    }

    @Override
    public IoServerSocket listen(UnixDomainSocketAddress path, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        return listen(path.getPath().toString(), path, path, backlog, options, ready);
    }

    @Override
    public IoServerSocket listenAbstract(String name, int backlog, Map<SocketOption<?>, Object> options,
                                         IoReady ready) throws IOException {
        return listen("@" + name, null, "@" + name, backlog, options, ready);
    }

    private IoServerSocket listen(String key, SocketAddress local, Object named, int backlog,
                                  Map<SocketOption<?>, Object> options, IoReady ready) throws IOException {
        checkOptions(options);
        net.lock.lock();
        try {
            if (host.unixNames.containsKey(key)) {
                throw SocketErrors.of(Call.BIND, SocketErrors.EADDRINUSE, null, named);
            }
            if (host.open.size() >= host.openFileLimit) {
                throw SocketErrors.of(Call.IO, SocketErrors.EMFILE, null, null);
            }
            Object rcv = options.get(StandardSocketOptions.SO_RCVBUF);
            SimServerSocket s = new SimServerSocket(net, host, driver, ready, null,
                    backlog > 0 ? backlog : DEFAULT_BACKLOG, rcv == null ? SimSocket.DEFAULT_RCVBUF : (Integer) rcv);
            s.unixName = key;
            s.unixLocal = local;
            host.unixNames.put(key, s);
            host.open.add(s);
            net.trace(host.name() + " listening on unix " + key);
            return s;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public IoSocket connect(UnixDomainSocketAddress path, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        return connect(path.getPath().toString(), path, path, SocketErrors.ENOENT, options, ready);
    }

    @Override
    public IoSocket connectAbstract(String name, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        // Linux refuses an abstract name nobody holds: there is no file to be missing
        return connect("@" + name, null, "@" + name, SocketErrors.ECONNREFUSED, options, ready);
    }

    /**
     * Connects at once, as a Unix domain connect does: the accepted end waits in the listener's
     * queue, this end is connected before the call returns. A full queue refuses the connect with
     * "Resource temporarily unavailable", as Linux does a non-blocking one.
     */
    private IoSocket connect(String key, SocketAddress remote, Object named, int missing,
                             Map<SocketOption<?>, Object> options, IoReady ready) throws IOException {
        checkOptions(options);
        net.lock.lock();
        try {
            SimServerSocket l = host.unixNames.get(key);
            if (l == null || l.closed) {
                throw SocketErrors.of(Call.CONNECT, missing, null, named);
            }
            if (l.pending.size() >= l.backlog) {
                throw SocketErrors.of(Call.CONNECT, SocketErrors.EAGAIN, null, named);
            }
            if (host.open.size() >= host.openFileLimit) {
                throw SocketErrors.of(Call.IO, SocketErrors.EMFILE, null, null);
            }
            SimSocket s = new SimSocket(net, host, driver, ready);
            Object rcv = options.get(StandardSocketOptions.SO_RCVBUF);
            Object snd = options.get(StandardSocketOptions.SO_SNDBUF);
            if (rcv != null) {
                s.rcvbuf = (Integer) rcv;
            }
            if (snd != null) {
                s.sndbuf = (Integer) snd;
            }
            SimSocket a = new SimSocket(net, host, l.driver, null);
            a.rcvbuf = l.rcvbuf;
            s.unix = true;
            a.unix = true;
            s.unixRemote = remote;
            a.unixLocal = l.unixLocal;
            s.peerHost = host;
            a.peerHost = host;
            Pipe.join(s, a);
            s.connected = true;
            a.connected = true;
            host.open.add(s);
            l.pending.add(a);
            l.changed();
            net.trace(host.name() + " unix connection to " + key);
            return s;
        } finally {
            net.lock.unlock();
        }
    }
}
