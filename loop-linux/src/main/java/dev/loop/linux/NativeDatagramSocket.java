package dev.loop.linux;

import dev.loop.spi.IoDatagram;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A backend's UDP socket whose system calls are {@link NativeDatagram}'s: the backend supplies
 * readiness, registration and closing, and these defaults make the calls. Loop thread only.
 */
public interface NativeDatagramSocket extends IoDatagram {

    /** The calls of this socket. */
    NativeDatagram calls();

    /**
     * Reports read readiness again at once: datagrams received in a batch wait in this socket, not
     * in the kernel, so no poll would report them.
     */
    void reportBuffered();

    @Override
    default InetSocketAddress receive(ByteBuffer dst) throws IOException {
        InetSocketAddress from = calls().receive(dst);
        if (from != null && calls().buffered()) {
            reportBuffered(); // the receiver may stop before the batch is handed out
        }
        return from;
    }

    @Override
    default boolean hold(ByteBuffer src, InetSocketAddress target) {
        return calls().hold(src, target);
    }

    @Override
    default int flushHeld(Consumer<IOException> refused) throws IOException {
        return calls().flushHeld(refused);
    }

    @Override
    default boolean send(ByteBuffer src, InetSocketAddress target) throws IOException {
        return calls().send(src, target);
    }

    @Override
    default void connect(InetSocketAddress peer) throws IOException {
        calls().connect(peer);
    }

    @Override
    default InetSocketAddress remoteAddress() {
        return calls().remoteAddress();
    }

    @Override
    default void joinGroup(InetAddress group, NetworkInterface nif) throws IOException {
        calls().membership(true, group, nif);
    }

    @Override
    default void leaveGroup(InetAddress group, NetworkInterface nif) throws IOException {
        calls().membership(false, group, nif);
    }

    @Override
    default <T> void setOption(SocketOption<T> option, T value) throws IOException {
        calls().apply(option, value);
    }

    @Override
    default InetSocketAddress localAddress() {
        return calls().localAddress();
    }
}
