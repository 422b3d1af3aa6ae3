package dev.loop.net.dgram;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.spi.DatagramIo;
import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The JDK's loopback UDP sockets as a backend's datagram sockets, with what the kernel would decide
 * said by the test instead: while {@link #full} is set the kernel "has no room" (a send returns
 * false, as a real backend's does on EAGAIN), and with {@link #refuseFirst} the first held datagram
 * of a flush is refused. Sends are held when the endpoint asks, and every call is counted.
 */
final class LoopbackDatagrams implements NetIo, DatagramIo {
    private final Loop loop;
    volatile boolean full;
    boolean refuseFirst;
    /** Completed by the first flush of held sends of the last socket opened. */
    Promise<Void> flushed;
    Socket last;

    LoopbackDatagrams(Loop loop) {
        this.loop = loop;
    }

    /** The kernel has room again: the socket is told it can write, if it asked. */
    void makeRoom() {
        full = false;
        if (last.wantsWrite) {
            last.ready.onReady(IoReady.WRITE);
        }
    }

    @Override
    public DatagramIo datagrams() {
        return this;
    }

    @Override
    public IoDatagram open(InetSocketAddress local, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        DatagramChannel ch = DatagramChannel.open();
        ch.configureBlocking(false);
        ch.bind(local);
        flushed = loop.newPromise();
        last = new Socket(ch, ready);
        return last;
    }

    @Override
    public IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) {
        throw new UnsupportedOperationException();
    }

    @Override
    public IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready) {
        throw new UnsupportedOperationException();
    }

    @Override
    public IoSocket adopt(IoSocket accepted) {
        throw new UnsupportedOperationException();
    }

    final class Socket implements IoDatagram {
        final DatagramChannel ch;
        final IoReady ready;
        final List<ByteBuffer> held = new ArrayList<>();
        final List<InetSocketAddress> targets = new ArrayList<>();
        int heldCount;
        int flushes;
        int sends;
        boolean wantsWrite;
        boolean open = true;

        Socket(DatagramChannel ch, IoReady ready) {
            this.ch = ch;
            this.ready = ready;
        }

        @Override
        public InetSocketAddress localAddress() {
            try {
                return (InetSocketAddress) ch.getLocalAddress();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public InetSocketAddress receive(ByteBuffer dst) throws IOException {
            return (InetSocketAddress) ch.receive(dst);
        }

        @Override
        public boolean send(ByteBuffer src, InetSocketAddress target) throws IOException {
            sends++;
            if (full) {
                return false;
            }
            int n = src.remaining();
            return ch.send(src, target) == n;
        }

        @Override
        public boolean hold(ByteBuffer src, InetSocketAddress target) {
            held.add(ByteBuffer.allocate(src.remaining()).put(src).flip());
            targets.add(target);
            heldCount++;
            return true;
        }

        @Override
        public int flushHeld(Consumer<IOException> refused) throws IOException {
            flushes++;
            for (int i = 0; i < held.size(); i++) {
                if (refuseFirst && i == 0) {
                    refused.accept(new SocketException("Permission denied"));
                    continue;
                }
                ch.send(held.get(i), targets.get(i));
            }
            held.clear();
            targets.clear();
            flushed.tryComplete(null);
            return 0;
        }

        @Override
        public void connect(InetSocketAddress remote) throws IOException {
            ch.connect(remote);
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return null;
        }

        @Override
        public void joinGroup(InetAddress group, NetworkInterface nif) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void leaveGroup(InetAddress group, NetworkInterface nif) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> void setOption(SocketOption<T> option, T value) throws IOException {
            ch.setOption(option, value);
        }

        @Override
        public void interest(boolean read, boolean write) {
            wantsWrite = write;
        }

        @Override
        public void close() {
            open = false;
            try {
                ch.close();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public boolean isOpen() {
            return open;
        }
    }
}
