package dev.loop.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.ChannelException;
import io.netty.channel.unix.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every shape in which Netty reports an error number comes out as the JDK exception
 * {@link SocketErrors} has for that number, with no Netty type left in it.
 */
class NativeErrorsTest {
    private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 9);

    @BeforeAll
    static void loadNative() {
        NativeLibrary.load(); // Errors builds its messages with the native strerror
    }

    /** {@code e} translated is exactly what the table says for {@code errno}, and keeps no cause. */
    private static void assertTable(Call call, int errno, IOException e) {
        IOException translated = NativeErrors.translate(call, e, ADDRESS);
        SocketException expected = SocketErrors.of(call, errno, null, ADDRESS);
        assertEquals(expected.getClass(), translated.getClass());
        assertEquals(expected.getMessage(), translated.getMessage());
        assertNull(translated.getCause(), "Netty's exception is dropped, not kept as a cause");
    }

    @Test
    void aNativeIoExceptionCarriesItsErrorNumber() {
        assertTable(Call.CONNECT, SocketErrors.ECONNREFUSED,
                Errors.newIOException("connect", -SocketErrors.ECONNREFUSED));
        assertTable(Call.IO, SocketErrors.ECONNRESET, Errors.newIOException("recv", -SocketErrors.ECONNRESET));
        assertTable(Call.BIND, SocketErrors.EADDRINUSE, Errors.newIOException("bind", -SocketErrors.EADDRINUSE));
    }

    @Test
    void aRefusedConnectIsTheJdksConnectExceptionNamingTheAddress() {
        IOException e = NativeErrors.translate(Call.CONNECT,
                Errors.newIOException("connect", -SocketErrors.ECONNREFUSED), ADDRESS);
        assertInstanceOf(ConnectException.class, e);
        assertEquals("Connection refused: " + ADDRESS, e.getMessage());
    }

    @Test
    void theNumberInAConnectExceptionsMessageIsRead() {
        assertTable(Call.CONNECT, SocketErrors.ETIMEDOUT,
                new ConnectException("connect(..) failed with error(-110): Connection timed out"));
    }

    @Test
    void exceptionsWithoutANumberAreMappedByKind() {
        assertTable(Call.CONNECT, SocketErrors.ENOENT, new FileNotFoundException("/tmp/nowhere"));
        assertTable(Call.IO, SocketErrors.ECONNREFUSED, new PortUnreachableException("recvfrom() failed"));
        assertTable(Call.CONNECT, SocketErrors.EHOSTUNREACH, new NoRouteToHostException());
    }

    @Test
    void theSystemsTextIsMatchedWhenNoNumberIsGiven() {
        assertTable(Call.IO, SocketErrors.EPIPE, new IOException("sendAddress(..) failed: Broken pipe"));
    }

    @Test
    void aClosedChannelComesBackAsItIs() {
        ClosedChannelException closed = new ClosedChannelException();
        assertSame(closed, NativeErrors.translate(Call.IO, closed, null));
    }

    @Test
    void aSocketThatCouldNotBeOpenedIsTheJdksException() {
        IOException tooMany = assertThrows(IOException.class, () -> NativeErrors.opened(() -> {
            throw new ChannelException(Errors.newIOException("socket", -SocketErrors.EMFILE));
        }));
        assertEquals(SocketErrors.of(Call.IO, SocketErrors.EMFILE, null, null).getMessage(), tooMany.getMessage());
        assertNull(tooMany.getCause());

        SocketException other = assertThrows(SocketException.class, () -> NativeErrors.opened(() -> {
            throw new ChannelException("no reason given");
        }));
        assertEquals("opening a socket failed: no reason given", other.getMessage());
    }

    @Test
    void aResultIsTranslatedByItsNegatedNumber() {
        SocketException e = NativeErrors.ofResult(Call.IO, -SocketErrors.ECONNRESET, null);
        assertEquals(SocketErrors.of(Call.IO, SocketErrors.ECONNRESET, null, null).getMessage(), e.getMessage());
    }
}
