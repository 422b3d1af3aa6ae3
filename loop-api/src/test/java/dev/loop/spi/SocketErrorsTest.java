package dev.loop.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

/**
 * The table itself, for the errors loopback cannot provoke (an unreachable host or network, a
 * connect the kernel gives up on) and for the JDK's texts a backend on its channels hands in; the
 * errors loopback can provoke are checked end to end on every backend by the conformance suite
 * {@code ErrorContract}.
 */
class SocketErrorsTest {
    private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 4567);

    private static void assertError(Class<?> type, String message, Throwable e) {
        assertEquals(type, e.getClass(), () -> "was " + e);
        assertEquals(message, e.getMessage());
    }

    @Test
    void anUnreachableHostOrNetworkIsNoRouteToHostWhateverTheCall() {
        assertError(NoRouteToHostException.class, "No route to host: " + ADDRESS,
                SocketErrors.of(Call.CONNECT, SocketErrors.EHOSTUNREACH, null, ADDRESS));
        assertError(NoRouteToHostException.class, "Network is unreachable: " + ADDRESS,
                SocketErrors.of(Call.CONNECT, SocketErrors.ENETUNREACH, null, ADDRESS));
        assertError(NoRouteToHostException.class, "Network is unreachable",
                SocketErrors.of(Call.IO, SocketErrors.ENETUNREACH, null, ADDRESS));
    }

    @Test
    void aConnectTheKernelGaveUpOnIsAConnectExceptionNamingTheAddress() {
        assertError(ConnectException.class, "Connection timed out: " + ADDRESS,
                SocketErrors.of(Call.CONNECT, SocketErrors.ETIMEDOUT, null, ADDRESS));
        // on an open connection (keepalive, retransmissions) it is no connect failure
        assertError(SocketException.class, "Connection timed out",
                SocketErrors.of(Call.IO, SocketErrors.ETIMEDOUT, null, ADDRESS));
    }

    @Test
    void noLocalPortLeftForAConnectIsABindException() {
        assertError(BindException.class, "Cannot assign requested address: " + ADDRESS,
                SocketErrors.of(Call.CONNECT, SocketErrors.EADDRNOTAVAIL, null, ADDRESS));
    }

    @Test
    void permissionDeniedIsABindExceptionWhenBindingAndAConnectExceptionWhenConnecting() {
        assertError(BindException.class, "Permission denied: " + ADDRESS,
                SocketErrors.of(Call.BIND, SocketErrors.EACCES, null, ADDRESS));
        assertError(ConnectException.class, "Permission denied: /tmp/s",
                SocketErrors.of(Call.CONNECT, SocketErrors.EACCES, null, "/tmp/s"));
    }

    @Test
    void resetsSayWhatTheJdkSaysForAReadWhicheverCallMetThem() {
        assertError(SocketException.class, "Connection reset", SocketErrors.of(Call.IO, SocketErrors.ECONNRESET, null, null));
        // the JDK's text for a failed write is the system's: the same exception
        IOException write = new IOException("Connection reset by peer");
        assertError(SocketException.class, "Connection reset", SocketErrors.translate(Call.IO, write, null));
    }

    @Test
    void theJdksPlainIOExceptionsOfDataTransferBecomeSocketExceptions() {
        assertError(SocketException.class, "Broken pipe",
                SocketErrors.translate(Call.IO, new IOException("Broken pipe"), null));
        assertError(SocketException.class, "Too many open files",
                SocketErrors.translate(Call.IO, new IOException("Too many open files"), null));
        assertError(PortUnreachableException.class, "ICMP port unreachable",
                SocketErrors.translate(Call.IO, new PortUnreachableException("ICMP port unreachable"), null));
    }

    @Test
    void aMissingUnixPathIsAConnectExceptionLikeARefusedOne() {
        // the JDK throws a plain SocketException for ENOENT and a ConnectException for ECONNREFUSED
        assertError(ConnectException.class, "No such file or directory: /tmp/s",
                SocketErrors.translate(Call.CONNECT, new SocketException("No such file or directory"), "/tmp/s"));
        assertError(ConnectException.class, "Connection refused: /tmp/s",
                SocketErrors.translate(Call.CONNECT, new ConnectException("Connection refused"), "/tmp/s"));
    }

    @Test
    void exceptionsThatAreNoErrorTextComeBackAsTheyAre() {
        ClosedChannelException closed = new ClosedChannelException();
        assertSame(closed, SocketErrors.translate(Call.IO, closed, null));
        IOException own = new IOException("output of the socket is shut down");
        assertSame(own, SocketErrors.translate(Call.IO, own, null));
    }

    @Test
    void anErrorNumberTheTableDoesNotKnowKeepsTheSystemsTextAsASocketException() {
        assertError(SocketException.class, "Key has expired", SocketErrors.of(Call.IO, 127, "Key has expired", null));
        assertError(SocketException.class, "error 4095", SocketErrors.of(Call.IO, 4095, null, null));
    }
}
