package dev.loop.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared native socket calls on real sockets over loopback: options, listening, accepting. */
class NativeSocketsTest {
    private static final String BACKEND = "test";
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @BeforeAll
    static void loadNative() {
        NativeLibrary.load();
    }

    @Test
    void standardOptionsReachTheSocket() throws IOException {
        Socket s = Socket.newSocketStream();
        try {
            NativeSocketOptions.applyAll(s, Map.of(StandardSocketOptions.TCP_NODELAY, true,
                    StandardSocketOptions.SO_REUSEPORT, true, StandardSocketOptions.SO_KEEPALIVE, true), BACKEND);
            assertTrue(s.isTcpNoDelay());
            assertTrue(s.isReusePort());
            assertTrue(s.isKeepAlive());
            NativeSocketOptions.apply(s, StandardSocketOptions.SO_LINGER, 0, BACKEND);
            assertEquals(0, s.getSoLinger());
        } finally {
            s.close();
        }
    }

    @Test
    void anOptionNotMappedNamesItselfAndTheBackend() throws IOException {
        Socket s = Socket.newSocketStream();
        try {
            SocketOption<Integer> tos = StandardSocketOptions.IP_TOS;
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> NativeSocketOptions.apply(s, tos, 0, BACKEND));
            assertEquals("backend test does not support IP_TOS", e.getMessage());
        } finally {
            s.close();
        }
    }

    @Test
    void anOptionOnAClosedSocketIsAJdkException() throws IOException {
        Socket s = Socket.newSocketStream();
        s.close();
        IOException e = assertThrows(IOException.class,
                () -> NativeSocketOptions.apply(s, StandardSocketOptions.TCP_NODELAY, true, BACKEND));
        assertFalse(e.getClass().getName().startsWith("io.netty"), e.getClass().getName());
    }

    @Test
    void aListenerAcceptsAndNamesItsPeerWithoutAskingTheKernel() throws IOException {
        Socket listener = Socket.newSocketStream();
        try {
            NativeListen.bindAndListen(listener, ANY_PORT, ANY_PORT, 0, 16, Map.of(), BACKEND);
            NativeAccept acceptor = new NativeAccept();
            assertEquals(-1, acceptor.accept(listener), "nothing pending: -1, not a wait");
            try (java.net.Socket client = new java.net.Socket()) {
                client.connect(listener.localAddress());
                int fd = acceptor.accept(listener);
                assertTrue(fd >= 0);
                new Socket(fd).close();
                assertEquals(client.getLocalSocketAddress(), acceptor.peer());
            }
        } finally {
            listener.close();
        }
    }

    @Test
    void aBindToAPortInUseIsABindExceptionNamingIt() throws IOException {
        Socket first = Socket.newSocketStream();
        Socket second = Socket.newSocketStream();
        try {
            NativeListen.bindAndListen(first, ANY_PORT, ANY_PORT, 0, 16, Map.of(), BACKEND);
            InetSocketAddress taken = (InetSocketAddress) first.localAddress();
            IOException e = assertThrows(IOException.class,
                    () -> NativeListen.bindAndListen(second, taken, taken, 0, 16, Map.of(), BACKEND));
            assertInstanceOf(BindException.class, e);
            assertTrue(e.getMessage().contains(taken.toString()), e.getMessage());
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void aConnectThatFailsNamesTheAddress() throws IOException {
        Socket listener = Socket.newSocketStream();
        InetSocketAddress closed;
        try {
            NativeListen.bindAndListen(listener, ANY_PORT, ANY_PORT, 0, 16, Map.of(), BACKEND);
            closed = (InetSocketAddress) listener.localAddress();
        } finally {
            listener.close(); // nothing listens there any more
        }
        Socket s = Socket.newSocketStream();
        try {
            boolean done = s.connect(closed);
            assertFalse(done, "loopback answers a non-blocking connect later, with a reset");
            IOException e = null;
            for (int i = 0; i < 1000 && e == null; i++) {
                try {
                    if (NativeStreams.finishConnect(s, closed)) {
                        break;
                    }
                    Thread.sleep(1);
                } catch (IOException failed) {
                    e = failed;
                } catch (InterruptedException interrupted) {
                    throw new AssertionError(interrupted);
                }
            }
            assertInstanceOf(java.net.ConnectException.class, e);
            assertEquals("Connection refused: " + closed, e.getMessage());
        } finally {
            s.close();
        }
    }
}
