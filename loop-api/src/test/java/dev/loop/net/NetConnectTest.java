package dev.loop.net;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/** A connect's failures arrive through its future, an unresolved address's too. */
class NetConnectTest {
    private static final InetSocketAddress NOWHERE = InetSocketAddress.createUnresolved("no-such-host.invalid", 80);

    @Test
    void anUnresolvedAddressFailsTheFutureNamingTheHost() {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"))) {
            assertFailsNamingTheHost(Net.connect(loop, NOWHERE));
            assertFailsNamingTheHost(Net.connect(loop, NOWHERE, ConnectionOptions.defaults(), TlsOptions.client()));
        }
    }

    private static void assertFailsNamingTheHost(LoopFuture<Connection> f) {
        assertTrue(f.isDone(), "failed at once, with no DNS lookup on the loop");
        assertFalse(f.isSuccess());
        UnknownHostException e = assertInstanceOf(UnknownHostException.class, f.exception());
        assertTrue(e.getMessage().contains("no-such-host.invalid"), e.getMessage());
        assertTrue(e.getMessage().contains("Net.connect(loop, host, port"), "points to connecting by name: " + e.getMessage());
    }
}
