package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Timeouts: a read timeout fails the read but keeps the connection; an idle connection is aborted
 * after its idle timeout.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetTimeoutContract extends StreamSuite {

    @Test
    void aReadTimeoutFailsTheReadButKeepsTheConnection() throws Exception {
        Loop loop = open();
        Server server = listen(loop, c -> { });
        Connection client = await(loop, connect(loop, server,
                ConnectionOptions.defaults().withReadTimeout(Duration.ofMillis(30))));
        Throwable e = awaitFailure(loop, client.read(ByteBuffer.allocate(10)));
        assertInstanceOf(SocketTimeoutException.class, e);
        assertTrue(client.isOpen());
    }

    @Test
    void anIdleConnectionIsAbortedAfterItsIdleTimeout() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        long[] acceptedAt = new long[1];
        // The connection is idle from its accept on (nothing reads the byte the client sends), so
        // that is where the 40 ms start: timing from a later point would let a busy machine's
        // delay between the accept and that point look like an early close.
        Server server = listen(loop,
                ServerOptions.defaults().withAccepted(ConnectionOptions.defaults().withIdleTimeout(Duration.ofMillis(40))),
                c -> {
                    acceptedAt[0] = loop.time();
                    accepted.complete(c);
                });
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        client.write(new byte[] {1});
        await(loop, conn.closeFuture());
        assertTrue(loop.time() - acceptedAt[0] >= TimeUnit.MILLISECONDS.toNanos(30), "closed before it was idle");
        assertFalse(conn.isOpen());
        assertInstanceOf(IOException.class, awaitFailure(loop, client.read(ByteBuffer.allocate(1))), "the peer sees a reset");
    }
}
