package dev.loop.linux;

import dev.loop.spi.IoDatagram;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.nio.ByteBuffer;

/**
 * A backend's UDP socket whose system calls are {@link NativeDatagram}'s: the backend supplies
 * readiness, registration and closing, and these defaults make the calls. Loop thread only.
 */
public interface NativeDatagramSocket extends IoDatagram {

    /** The calls of this socket. */
    NativeDatagram calls();

    @Override
    default InetSocketAddress receive(ByteBuffer dst) throws IOException {
        return calls().receive(dst);
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
