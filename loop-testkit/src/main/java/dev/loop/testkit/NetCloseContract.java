package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Unix;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ends of a connection: a half-close still lets the server answer, a reset fails the pending read
 * or write and leaks nothing, and closing the loop closes its sockets and fails what is pending.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetCloseContract extends StreamSuite {

    // ------------------------------------------------------------------ half-close

    @Test
    void halfCloseLetsTheServerAnswerAfterEndOfStream() throws Exception {
        Loop loop = open();
        Server server = listen(loop, c -> readAll(c).onDone(f -> {
            c.write(("answer to " + new String(f.result(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
            c.close();
        }));
        Connection client = await(loop, connect(loop, server));
        client.write("question".getBytes(StandardCharsets.UTF_8));
        client.shutdownOutput();
        byte[] answer = await(loop, readAll(client));
        assertEquals("answer to question", new String(answer, StandardCharsets.UTF_8));
        assertTrue(client.isInputShutdown());
    }

    // ------------------------------------------------------------------ resets

    @Test
    void aResetWhileReadingFailsTheReadAndLeaksNothing() throws Exception {
        assumeKernelSockets("leaks are counted in the process's descriptors");
        assumeTcp("a Unix domain socket has no reset: a peer that closes with nothing unread ends the stream");
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::complete);
        resetWhileReading(loop, server, accepted); // once to warm up lazily opened JDK resources
        long before = Fds.count();
        Promise<Connection> again = loop.newPromise();
        Server second = listen(loop, again::complete);
        long withServer = Fds.count();
        resetWhileReading(loop, second, again);
        spin(loop, 3); // the selector releases a closed channel's fd on its next select
        if (before >= 0) {
            assertEquals(withServer, Fds.count(), "file descriptors leaked");
        }
        server.close();
        second.close();
        spin(loop, 3);
        if (before >= 0) {
            assertEquals(before - 1, Fds.count(), "file descriptors leaked");
        }
    }

    private void resetWhileReading(Loop loop, Server server, Promise<Connection> accepted) {
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        LoopFuture<Integer> read = conn.read(ByteBuffer.allocate(100));
        spin(loop, 2);
        assertFalse(read.isDone());
        client.abort();
        Throwable e = awaitFailure(loop, read);
        assertInstanceOf(IOException.class, e);
        await(loop, conn.closeFuture());
        assertFalse(conn.isOpen());
        assertFalse(client.isOpen());
    }

    @Test
    void aResetWhileWritingFailsThePendingWrite() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop,
                ServerOptions.defaults().withAccepted(ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024)),
                accepted::complete);
        Connection client = await(loop, connect(loop, server,
                ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024)));
        Connection conn = await(loop, accepted);
        LoopFuture<Void> write = conn.write(new byte[8 << 20]); // the client never reads: it stays queued
        spin(loop, 3);
        assertFalse(write.isDone());
        assertTrue(conn.queuedBytes() > 0);
        client.abort();
        Throwable e = awaitFailure(loop, write);
        assertInstanceOf(IOException.class, e);
        await(loop, conn.closeFuture());
        assertEquals(0, conn.queuedBytes(), "the queue is dropped with the connection");
        assertInstanceOf(IOException.class, awaitFailure(loop, conn.write(new byte[1])));
    }

    // ------------------------------------------------------------------ loop close

    @Test
    void closingTheLoopClosesItsSocketsAndFailsWhatIsPending() throws Exception {
        long before = Fds.count();
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::tryComplete);
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        LoopFuture<Integer> clientRead = client.read(ByteBuffer.allocate(10));
        LoopFuture<String> serverLine = conn.readLine(100);
        Connection idle = await(loop, connect(loop, server)); // accepted, never read
        spin(loop, 2);
        loop.close();
        for (LoopFuture<?> f : List.of(clientRead, serverLine)) {
            assertTrue(f.isDone(), f + " still pending after close");
            assertInstanceOf(IOException.class, f.exception());
        }
        for (Connection c : List.of(client, conn, idle)) {
            assertFalse(c.isOpen(), c + " still open");
            assertTrue(c.closeFuture().isDone());
        }
        assertFalse(server.isOpen());
        if (before >= 0) {
            assertEquals(before, Fds.count(), "file descriptors leaked");
        }
    }
}
