package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.Unix;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connecting, binding and what a connection reports, on every backend with sockets x timer
 * strategy x task mechanism x transport of the {@link Matrix}: a refused connect and an address in
 * use fail naming the address; addresses and options are reported. The other stream socket
 * suites ({@code Net*Contract}) share {@link StreamSuite} with it.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetContract extends StreamSuite {

    // ------------------------------------------------------------------ connect and bind

    @Test
    void aRefusedConnectFailsPromptlyNamingTheAddress() throws Exception {
        SocketAddress dead = deadAddress();
        Loop loop = open();
        long start = System.nanoTime();
        Throwable e = awaitFailure(loop, connectTo(loop, dead));
        assertInstanceOf(ConnectException.class, e);
        String named = dead instanceof InetSocketAddress i ? ":" + i.getPort() : dead.toString();
        assertTrue(e.getMessage().contains(named), e.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "refusal took too long");
    }

    @Test
    void bindingAnAddressInUseFailsNamingTheAddress() throws Exception {
        Loop loop = open();
        Server first = listen(loop, c -> { });
        BindException e = assertThrows(BindException.class, () -> listenAt(loop, first.localSocketAddress()));
        assertTrue(e.getMessage().contains(first.localSocketAddress().toString()), e.getMessage());
        assertTrue(first.isOpen(), "the first server goes on");
    }

    // ------------------------------------------------------------------ addresses and options

    @Test
    void addressesAndOptionsAreReported() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::complete);
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        assertEquals(server.localSocketAddress(), client.remoteSocketAddress());
        assertEquals(client.localSocketAddress(), conn.remoteSocketAddress());
        if (!cell.transport().equals("unix")) {
            assertEquals(server.localAddress(), client.remoteAddress());
            assertEquals(server.localAddress().getPort(), conn.localAddress().getPort());
        } else {
            assertEquals(server.localSocketAddress(), conn.localSocketAddress());
            assertEquals("", client.localSocketAddress().toString(), "a client's Unix socket is unnamed");
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, client::remoteAddress);
            assertTrue(e.getMessage().contains("remoteSocketAddress"), e.getMessage());
            assertThrows(UnsupportedOperationException.class, server::localAddress);
        }
        assertEquals(List.of(conn), server.connections());
        server.close(true);
        spin(loop, 2);
        assertFalse(conn.isOpen());
        assertFalse(server.isOpen());
    }
}
