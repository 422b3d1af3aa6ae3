package dev.loop.select;

import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;

/**
 * A non-blocking {@link DatagramChannel} on the loop's selector. Not thread-safe: loop thread only.
 *
 * <p>The JDK keeps the last sender's {@code InetSocketAddress} and hands the same object back while
 * datagrams keep coming from it, so receiving from a steady peer allocates nothing; sending to a
 * target reuses the channel's native address buffer likewise.
 */
final class SelectDatagram extends SelectChannel implements IoDatagram {
    private final DatagramChannel ch;
    private final InetSocketAddress local;
    private final List<MembershipKey> memberships = new ArrayList<>(0);
    private InetSocketAddress remote;

    SelectDatagram(Selector selector, DatagramChannel ch, IoReady ready) throws IOException {
        super(selector, ch, ready);
        this.ch = ch;
        this.local = (InetSocketAddress) ch.getLocalAddress();
    }

    @Override
    int opsFor(boolean read, boolean write) {
        return (read ? SelectionKey.OP_READ : 0) | (write ? SelectionKey.OP_WRITE : 0);
    }

    @Override
    public InetSocketAddress receive(ByteBuffer dst) throws IOException {
        try {
            return (InetSocketAddress) ch.receive(dst);
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null);
        }
    }

    @Override
    public boolean send(ByteBuffer src, InetSocketAddress target) throws IOException {
        boolean empty = !src.hasRemaining();
        int n;
        try {
            n = target == null ? ch.write(src) : ch.send(src, target);
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null);
        }
        // An empty datagram sends 0 bytes whether or not the kernel had room: count it as sent.
        return n > 0 || empty;
    }

    @Override
    public void connect(InetSocketAddress peer) throws IOException {
        try {
            ch.connect(peer);
        } catch (IOException e) {
            throw SocketErrors.translate(Call.CONNECT, e, peer);
        }
        remote = peer;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public void joinGroup(InetAddress group, NetworkInterface nif) throws IOException {
        memberships.add(ch.join(group, nif));
    }

    @Override
    public void leaveGroup(InetAddress group, NetworkInterface nif) throws IOException {
        for (MembershipKey k : memberships) {
            if (k.group().equals(group) && k.networkInterface().equals(nif)) {
                memberships.remove(k);
                k.drop();
                return;
            }
        }
        throw new java.net.SocketException("not a member of " + group + " on " + nif.getName());
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        SelectNetIo.apply(ch, option, value);
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public String toString() {
        return "SelectDatagram[" + local + (remote == null ? "" : " -> " + remote) + "]";
    }
}
