package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Stopping a server: {@link Server#close()} stops accepting and leaves accepted connections open;
 * {@link Server#shutdown(Duration)} also tells their handlers, waits for them to close, closes what
 * is left at the deadline after sending its queue, and aborts a peer that does not take it. On a
 * {@link ManualClock}, so deadlines are exact and nothing sleeps; over every transport.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetShutdownContract extends StreamSuite {
    private final ManualClock clock = ManualClock.create();

    @Override
    protected LoopOptions options() {
        return super.options().withClock(clock);
    }

    private static final ConnectionOptions SMALL_BUFFERS = ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024);

    /** Runs iterations until {@code condition} holds: for I/O to arrive, which a manual clock does not wait for. */
    private static void spinUntil(Loop loop, String what, BooleanSupplier condition) {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("still waiting after " + PATIENCE.toSeconds() + " s for " + what);
            }
            spin(loop, 1);
        }
    }

    @Test
    void connectionsThatFinishBeforeTheDeadlineEndTheShutdown() throws Exception {
        Loop loop = open();
        List<Connection> told = new ArrayList<>();
        Server server = listen(loop, c -> c.setHandler(new ConnectionHandler() {
            @Override
            public void onData(Connection conn, ByteBuffer data) {
                conn.write(data);
            }

            @Override
            public void onServerShutdown(Connection conn) {
                told.add(conn);
            }
        }));
        Connection a = await(loop, connect(loop, server));
        Connection b = await(loop, connect(loop, server));
        for (Connection c : List.of(a, b)) {
            c.write(new byte[] {7});
            assertEquals(7, await(loop, c.readExactly(1)).get(), "echoed: the server holds the connection");
        }
        LoopFuture<Void> done = server.shutdown(Duration.ofSeconds(10));
        assertFalse(server.isOpen(), "it stops accepting at once");
        assertEquals(2, told.size(), "every handler hears of the shutdown");
        assertInstanceOf(IOException.class, awaitFailure(loop, connect(loop, server.localSocketAddress(),
                ConnectionOptions.defaults())), "no new connection is accepted");
        a.close();
        spinUntil(loop, "the server's side of the first connection to close", () -> server.connections().size() == 1);
        assertFalse(done.isDone(), "one connection is still open");
        assertSame(done, server.shutdown(Duration.ZERO), "a second call is the same shutdown");
        b.close();
        await(loop, done);
        assertEquals(0, loop.time(), "finished before the deadline: the clock never moved");
        assertTrue(server.connections().isEmpty());
    }

    @Test
    void aConnectionOpenAtTheDeadlineIsClosedAfterSendingItsQueue() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, ServerOptions.defaults().withAccepted(SMALL_BUFFERS), accepted::tryComplete);
        Connection client = await(loop, connect(loop, server, SMALL_BUFFERS));
        Connection conn = await(loop, accepted);
        byte[] data = randomBytes(new Random(25), 4 << 20);
        conn.write(data);
        spin(loop, 3);
        assertTrue(conn.queuedBytes() > 0, "the client has not read: bytes wait in the queue");
        LoopFuture<Void> done = server.shutdown(Duration.ofSeconds(5));
        clock.advance(Duration.ofMillis(4999));
        spin(loop, 3);
        assertTrue(conn.isOpen(), "open until the deadline");
        assertFalse(done.isDone());
        clock.advance(Duration.ofMillis(1));
        spin(loop, 3);
        assertFalse(conn.isOpen(), "closing at the deadline");
        assertArrayEquals(data, await(loop, readAll(client)), "every queued byte, then the end of the stream");
        await(loop, done);
        assertEquals(TimeUnit.SECONDS.toNanos(5), loop.time());
    }

    @Test
    void aPeerThatDoesNotTakeItsQueueIsAbortedAfterTheFlushLimit() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, ServerOptions.defaults().withAccepted(SMALL_BUFFERS), accepted::tryComplete);
        await(loop, connect(loop, server, SMALL_BUFFERS)); // and never read
        Connection conn = await(loop, accepted);
        conn.write(new byte[8 << 20]);
        spin(loop, 3);
        LoopFuture<Void> done = server.shutdown(Duration.ZERO);
        spin(loop, 3);
        assertFalse(conn.isOpen(), "closing at once");
        clock.advance(Server.SHUTDOWN_FLUSH_LIMIT.minusMillis(1));
        spin(loop, 3);
        assertFalse(done.isDone(), "a peer that does not read holds the close up to the limit");
        clock.advance(Duration.ofMillis(1));
        await(loop, done);
        await(loop, conn.closeFuture());
        assertTrue(server.connections().isEmpty());
    }

    @Test
    void closingAServerLeavesItsConnectionsOpen() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Connection client;
        Connection conn;
        try (Server server = listen(loop, accepted::tryComplete)) {
            client = await(loop, connect(loop, server));
            conn = await(loop, accepted);
        }
        spin(loop, 2);
        assertTrue(conn.isOpen(), "close() only stops accepting");
        client.write(new byte[] {9});
        assertEquals(9, await(loop, conn.readExactly(1)).get());
    }
}
