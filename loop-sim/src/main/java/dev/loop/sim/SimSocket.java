package dev.loop.sim;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetConnectedException;

/**
 * One end of a simulated TCP connection: reads from the {@link Pipe} the peer writes into, writes
 * into the one the peer reads. What a kernel would do on its own is done by events on the network:
 * a segment arrives after the link's delay; bytes that arrive at a closed socket answer with a
 * reset; closing with unread bytes resets instead of ending the stream (as Linux does). Failures
 * are the ones {@link SocketErrors} gives every backend.
 */
final class SimSocket extends SimHandle implements IoSocket {
    static final int DEFAULT_RCVBUF = 128 * 1024;
    static final int DEFAULT_SNDBUF = 64 * 1024;
    /**
     * The most bytes of one segment on a link with a bandwidth limit: a large write leaves as
     * several, so the reader sees bytes trickle in at the link's rate rather than all at the end.
     */
    static final int SEGMENT_BYTES = 16 * 1024;

    InetSocketAddress local;
    InetSocketAddress remote;
    /** Where the peer lives: where segments go. */
    SimHost peerHost;
    Pipe in;
    Pipe out;
    boolean connected;
    private boolean outputShut;
    IOException connectError;
    int rcvbuf = DEFAULT_RCVBUF;
    int sndbuf = DEFAULT_SNDBUF;
    /** A Unix domain socket ({@link SimUnixIo}): its bytes cross no link, and a gone peer is a broken pipe. */
    boolean unix;
    /** A Unix domain socket's own name (a listener's path) and its peer's; null when unnamed. */
    SocketAddress unixLocal;
    SocketAddress unixRemote;

    SimSocket(SimNetwork net, SimHost host, SimDriver driver, IoReady ready) {
        super(net, host, driver, ready);
    }

    @Override
    int readyOps() {
        if (connectError != null) {
            return IoReady.READ | IoReady.WRITE;
        }
        if (!connected) {
            return 0;
        }
        int ops = 0;
        if (in.available() > 0 || in.finArrived || in.resetArrived) {
            ops |= IoReady.READ;
        }
        if (out.room() > 0 || in.resetArrived || outputShut || unix && out.reader.closed) {
            ops |= IoReady.WRITE;
        }
        return ops;
    }

    @Override
    public void attach(IoReady r) {
        net.lock.lock();
        try {
            this.ready = r;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        net.lock.lock();
        try {
            if (connectError != null) {
                throw connectError;
            }
            return connected;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            if (!connected) {
                throw new NotYetConnectedException();
            }
            int n = in.take(dst);
            if (n > 0) {
                if (in.writer != null) {
                    in.writer.changed(); // the window opened
                }
                return n;
            }
            if (in.resetArrived) {
                throw SocketErrors.of(Call.IO, SocketErrors.ECONNRESET, null, null);
            }
            return in.finArrived && in.available() == 0 ? -1 : 0;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        net.lock.lock();
        try {
            checkWritable();
            int n = out.put(src);
            if (n > 0) {
                send(n);
            }
            return n;
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        net.lock.lock();
        try {
            checkWritable();
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                int n = out.put(srcs[i]);
                total += n;
                if (srcs[i].hasRemaining()) {
                    break;
                }
            }
            if (total > 0) {
                send(total);
            }
            return total;
        } finally {
            net.lock.unlock();
        }
    }

    private void checkWritable() throws IOException {
        if (closed || outputShut) {
            throw new ClosedChannelException(); // what a SocketChannel throws, also after shutdownOutput
        }
        if (!connected) {
            throw new NotYetConnectedException();
        }
        if (unix && (out.reader.closed || in.resetArrived)) {
            throw SocketErrors.of(Call.IO, SocketErrors.EPIPE, null, null); // no reset: the kernel knows the peer is gone
        }
        if (in.resetArrived) {
            throw SocketErrors.of(Call.IO, SocketErrors.ECONNRESET, null, null);
        }
    }

    /**
     * Sends the {@code n} bytes just written: one segment, or on a link with a bandwidth limit
     * segments of at most {@link #SEGMENT_BYTES}, each arriving once it has left and crossed the
     * link. Under the lock.
     */
    private void send(long n) {
        Pipe p = out;
        long end = p.written();
        if (unix || net.simulation == null) {
            // the peer's receive queue is in the same kernel, or (the shared network) every delivery
            // is at once: no event, and nothing allocated per write
            arrive(p, end, net.now());
            return;
        }
        long delay = net.delay(host, peerHost);
        boolean limited = net.limited(host, peerHost);
        long from = end - n;
        long to;
        do {
            to = limited ? Math.min(end, from + SEGMENT_BYTES) : end;
            long left = limited ? net.sent(host, peerHost, to - from) : net.now();
            long at = Math.max(left + delay, p.lastArrival);
            long segmentEnd = to;
            p.lastArrival = at;
            net.at(at, () -> arrive(p, segmentEnd, at));
            from = to;
        } while (to < end);
    }

    /** A segment of {@code p} up to {@code end} reaches the reader, unless the link is cut: then it is sent again. */
    private void arrive(Pipe p, long end, long at) {
        SimSocket reader = p.reader;
        if (net.cut(p.writer.host, reader.host)) {
            long again = net.now() + Simulation.RETRANSMIT_NANOS;
            p.lastArrival = Math.max(p.lastArrival, again);
            net.at(again, () -> arrive(p, end, again));
            return;
        }
        if (reader.closed) {
            p.discard();
            reader.resetPeer(); // bytes for a socket that is gone: the answer is a reset
            return;
        }
        p.arrive(end);
        reader.changed();
    }

    @Override
    public void shutdownOutput() throws IOException {
        net.lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            if (!connected) {
                throw new NotYetConnectedException();
            }
            if (!outputShut) {
                outputShut = true;
                sendFin();
            }
        } finally {
            net.lock.unlock();
        }
    }

    private void sendFin() {
        Pipe p = out;
        p.finAt = p.written();
        if (unix) {
            finArrives(p);
            return;
        }
        long at = Math.max(net.now() + net.delay(host, peerHost), p.lastArrival);
        p.lastArrival = at;
        net.at(at, () -> finArrives(p));
    }

    private void finArrives(Pipe p) {
        if (net.cut(p.writer.host, p.reader.host)) {
            long again = net.now() + Simulation.RETRANSMIT_NANOS;
            p.lastArrival = Math.max(p.lastArrival, again);
            net.at(again, () -> finArrives(p));
            return;
        }
        p.arrive(p.finAt);
        p.finArrived = true;
        p.reader.changed();
        net.trace(p.reader.host.name() + " " + p.reader.localAddress() + " end of stream from " + p.reader.remoteAddress());
    }

    /** Sends a reset to the peer (after whatever is already on its way). Under the lock. */
    void resetPeer() {
        if (out == null || out.resetSent) {
            return;
        }
        Pipe p = out;
        p.resetSent = true;
        if (unix) {
            resetArrives(p);
            return;
        }
        long at = Math.max(net.now() + net.delay(host, peerHost), p.lastArrival);
        p.lastArrival = at;
        net.at(at, () -> resetArrives(p));
    }

    private void resetArrives(Pipe p) {
        if (net.cut(p.writer.host, p.reader.host)) {
            return; // a reset is not retransmitted: the peer learns of it when it next sends
        }
        SimSocket r = p.reader;
        if (r.closed) {
            return;
        }
        p.arrive(p.written());
        p.resetArrived = true;
        r.out.discard(); // what the peer had not read yet is gone with the connection
        r.changed();
        net.trace(r.host.name() + " " + r.localAddress() + " reset by " + r.remoteAddress());
    }

    /** Resets the connection at once, from outside (a fault): both ends see "Connection reset". Under the lock. */
    void resetBothNow() {
        for (Pipe p : new Pipe[] {in, out}) {
            if (p != null && !p.resetArrived && !p.reader.closed) {
                p.resetSent = true;
                p.arrive(p.written());
                p.resetArrived = true;
                p.reader.changed();
            }
        }
    }

    @Override
    public void close() {
        net.lock.lock();
        try {
            if (closed) {
                return;
            }
            release();
            if (connected) {
                if (unix) {
                    in.writer.changed(); // its next write is a broken pipe
                }
                if (in.unread() > 0) {
                    in.discard();
                    resetPeer(); // Linux resets a connection closed with unread bytes
                } else if (!outputShut) {
                    outputShut = true;
                    sendFin();
                }
            }
            net.trace(host.name() + " " + localAddress() + " closed");
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public void abort() {
        if (unix) {
            close(); // SO_LINGER means nothing to a Unix domain socket: the peer reads the end, or a reset if bytes were unread
            return;
        }
        net.lock.lock();
        try {
            if (closed) {
                return;
            }
            release();
            if (connected) {
                in.discard();
                resetPeer();
            }
            net.trace(host.name() + " " + localAddress() + " aborted");
        } finally {
            net.lock.unlock();
        }
    }

    private void release() {
        closed = true;
        host.open.remove(this);
        if (local != null && !unix) {
            host.releasePort(local.getPort());
        }
        changed();
    }

    /** The connect succeeded: the peer's answer arrived. Under the lock. */
    void established() {
        if (closed) {
            resetPeer();
            return;
        }
        connected = true;
        changed();
        net.trace(host.name() + " " + local + " connected to " + remote);
    }

    /** The connect failed with {@code errno}. Under the lock. */
    void failed(int errno) {
        if (closed) {
            return;
        }
        connectError = SocketErrors.of(Call.CONNECT, errno, null, remote);
        changed();
        net.trace(host.name() + " connect to " + remote + " failed: " + connectError.getMessage());
    }

    @Override
    public SocketAddress localAddress() {
        return unix ? unixLocal : local;
    }

    @Override
    public SocketAddress remoteAddress() {
        return unix ? unixRemote : remote;
    }

    /** The peer's host's ids ({@link SimHost#processIds}): every Unix domain peer lives on this socket's host. */
    @Override
    public UnixIo.IoPeerCredentials peerCredentials() throws IOException {
        net.lock.lock();
        try {
            if (!unix) {
                throw new UnsupportedOperationException("peer credentials are a Unix domain socket's, not TCP's");
            }
            if (closed) {
                throw new ClosedChannelException();
            }
            return new UnixIo.IoPeerCredentials(peerHost.pid, peerHost.uid, peerHost.gid);
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) {
        net.lock.lock();
        try {
            SimNetIo.checkOption(option);
            if (option == StandardSocketOptions.SO_RCVBUF) {
                rcvbuf = Math.max(1024, (Integer) value);
            } else if (option == StandardSocketOptions.SO_SNDBUF) {
                sndbuf = Math.max(1024, (Integer) value);
            }
        } finally {
            net.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "SimSocket[" + localAddress() + " -> " + remoteAddress() + "]";
    }
}
