package dev.loop.net.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.PeerCredentials;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.UnixIo;
import dev.loop.testing.ParkingLoopProvider;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Connection#peerCredentials()}: asked of the backend's socket under the connection, refused
 * over TCP and on a closed connection, and refused naming the backend where its socket cannot read
 * them. Over fake sockets on the test backend: what a real peer's ids look like is the
 * conformance suite's {@code UnixContract}.
 */
class UnixPeersTest {
    private static final UnixDomainSocketAddress PATH = UnixDomainSocketAddress.of("/tmp/loop-peers-test.sock");

    private Loop loop;

    @AfterEach
    void close() {
        if (loop != null) {
            loop.close();
        }
    }

    private Connection accepted(SocketAddress remote, AcceptFailureTest.FakeSocket socket) {
        loop = Loops.open(LoopOptions.defaults().withBackend("park"));
        ParkingLoopProvider.last.net = new AcceptFailureTest.FakeListener();
        StreamConnection c = new StreamConnection(NetRegistry.of(loop), ConnectionOptions.defaults(), null, null, remote);
        c.accepted(socket);
        return c;
    }

    @Test
    void theSocketUnderTheConnectionAnswers() throws Exception {
        Connection c = accepted(PATH, new AcceptFailureTest.FakeSocket() {
            @Override
            public UnixIo.IoPeerCredentials peerCredentials() {
                return new UnixIo.IoPeerCredentials(4242, 1000, 100);
            }
        });
        assertEquals(new PeerCredentials(4242, 1000, 100), c.peerCredentials());
    }

    @Test
    void aSocketThatCannotReadThemIsRefusedNamingTheBackend() {
        Connection c = accepted(PATH, new AcceptFailureTest.FakeSocket());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, c::peerCredentials);
        assertTrue(e.getMessage().startsWith("backend park"), e.getMessage());
    }

    @Test
    void aTcpConnectionHasNoUnixPeer() {
        Connection c = accepted(new AcceptFailureTest.FakeSocket().remoteAddress(), new AcceptFailureTest.FakeSocket() {
            @Override
            public UnixIo.IoPeerCredentials peerCredentials() {
                throw new AssertionError("a TCP socket must not be asked");
            }
        });
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, c::peerCredentials);
        assertTrue(e.getMessage().contains("not a Unix domain socket connection"), e.getMessage());
    }

    @Test
    void aClosedConnectionIsRefused() {
        Connection c = accepted(PATH, new AcceptFailureTest.FakeSocket());
        c.abort();
        assertThrows(ClosedChannelException.class, c::peerCredentials);
    }
}
