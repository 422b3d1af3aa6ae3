package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.Task;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A connection off the happy path of its own API, on every backend with sockets: reads and drains
 * that are cancelled, reads that could never make progress, calls from other threads, and what a
 * connection holding an unfinished line costs. Each test is a rule of {@link Connection}'s javadoc.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tcpSockets")
public class ConnectionEdgeContract extends NetSuite {

    /** A connected pair on one loop: [client, the server's side]. */
    private Connection[] pair(Loop loop, ConnectionOptions options) throws Exception {
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, ServerOptions.defaults().withAccepted(options), accepted::complete);
        Connection client = await(loop, connect(loop, server, options));
        return new Connection[] {client, await(loop, accepted)};
    }

    private Connection[] pair(Loop loop) throws Exception {
        return pair(loop, ConnectionOptions.defaults());
    }

    /** Cancels {@code f} through the public API, as a caller holding only the future can. */
    private static boolean cancel(LoopFuture<?> f) {
        return f.toCompletableFuture().cancel(false) && f.isCancelled();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String ascii(ByteBuffer b) {
        return StandardCharsets.US_ASCII.decode(b).toString();
    }

    // ------------------------------------------------------------------ cancelled reads

    @Test
    void aCancelledReadIsWithdrawnAndTheBytesAfterItGoToTheNextRead() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        LoopFuture<Integer> first = p[1].read(ByteBuffer.allocate(16));
        spin(loop, 2);
        assertTrue(cancel(first));
        // the slot is free at once: no "a read is already pending"
        ByteBuffer buf = ByteBuffer.allocate(16);
        LoopFuture<Integer> second = p[1].read(buf);
        assertTrue(cancel(second));
        p[0].write(ascii("abc"));
        p[0].shutdownOutput();
        spin(loop, 5); // the bytes arrive while only cancelled reads were ever asked for
        buf = ByteBuffer.allocate(16);
        int n = await(loop, p[1].read(buf));
        assertEquals("abc", ascii(buf.flip()), "read " + n + " bytes after two cancelled reads");
        assertEquals(-1, await(loop, p[1].read(ByteBuffer.allocate(16))));
    }

    @Test
    void aCancelledReadLineKeepsWhatItHadBufferedForTheNextRead() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        LoopFuture<String> line = p[1].readLine(100);
        p[0].write(ascii("hel"));
        spin(loop, 5);
        assertFalse(line.isDone());
        cancel(line);
        p[0].write(ascii("lo\nworld\n"));
        p[0].shutdownOutput();
        spin(loop, 5);
        assertEquals("hello", await(loop, p[1].readLine(100)));
        assertEquals("world", await(loop, p[1].readLine(100)));
    }

    @Test
    void aCancelledReadUntilKeepsWhatItHadBufferedForTheNextRead() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] bar = {'|'};
        LoopFuture<ByteBuffer> until = p[1].readUntil(bar, 100);
        p[0].write(ascii("ab"));
        spin(loop, 5);
        cancel(until);
        p[0].write(ascii("c|de|"));
        p[0].shutdownOutput();
        spin(loop, 5);
        assertEquals("abc|", ascii(await(loop, p[1].readUntil(bar, 100))));
        assertEquals("de|", ascii(await(loop, p[1].readUntil(bar, 100))));
    }

    @Test
    void aCancelledReadExactlyKeepsWhatItHadConsumedForTheNextRead() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        LoopFuture<ByteBuffer> ten = p[1].readExactly(10);
        p[0].write(ascii("0123"));
        spin(loop, 5);
        cancel(ten);
        p[0].write(ascii("456789"));
        p[0].shutdownOutput();
        spin(loop, 5);
        assertEquals("0123456789", ascii(await(loop, p[1].readExactly(10))));
    }

    @Test
    void aTaskWhoseReadTimesOutReadsTheLineThatArrivesLater() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        Promise<Void> timedOut = loop.newPromise();
        Task<String> reader = loop.spawn(() -> {
            try {
                Async.timeout(Duration.ofMillis(20), () -> Async.await(p[1].readLine(100)));
                throw new AssertionError("no line was sent yet");
            } catch (TimeoutException expected) {
                // the read under the timeout was cancelled with the task's wait
            }
            timedOut.complete(null);
            return Async.await(p[1].readLine(100));
        });
        // sent once the timeout has happened, however late the loaded machine runs the task
        timedOut.onDone(f -> loop.callLater(Duration.ofMillis(20), () -> p[0].write(ascii("late\n"))));
        assertEquals("late", await(loop, reader));
    }

    // ------------------------------------------------------------------ drain

    @Test
    void eachWaitingDrainCanBeCancelledAlone() throws Exception {
        Loop loop = open();
        ConnectionOptions small = ConnectionOptions.defaults().withBufferSizes(16 * 1024, 16 * 1024).withWatermarks(1024, 4096);
        Connection[] p = pair(loop, small);
        p[1].write(new byte[4 << 20]); // the client does not read yet: far above the high watermark
        spin(loop, 3);
        assertFalse(p[1].isWritable());
        LoopFuture<Void> a = p[1].drain();
        LoopFuture<Void> b = p[1].drain();
        assertTrue(cancel(a));
        assertFalse(b.isDone(), "cancelling one drainer cancelled another: " + b);
        LoopFuture<Void> c = p[1].drain();
        assertFalse(c.isDone(), "a drain after a cancelled one starts cancelled: " + c);
        byte[] all = await(loop, readN(p[0], 4 << 20));
        assertEquals(4 << 20, all.length);
        await(loop, b);
        await(loop, c);
        assertTrue(b.isSuccess() && c.isSuccess());
        assertTrue(a.isCancelled());
    }

    private static LoopFuture<byte[]> readN(Connection c, int n) {
        Promise<byte[]> done = c.loop().newPromise();
        byte[] into = new byte[n];
        readMore(c, ByteBuffer.wrap(into), done);
        return done;
    }

    private static void readMore(Connection c, ByteBuffer into, Promise<byte[]> done) {
        if (!into.hasRemaining()) {
            done.complete(into.array());
            return;
        }
        c.read(into).onDone(f -> {
            if (!f.isSuccess()) {
                done.tryFail(f.exception());
            } else if (f.result() < 0) {
                done.tryFail(new java.io.EOFException("after " + into.position()));
            } else {
                readMore(c, into, done);
            }
        });
    }

    // ------------------------------------------------------------------ reads that cannot progress

    @Test
    void aReadIntoAFullBufferFailsAtOnceNamingTheBuffer() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        ByteBuffer full = ByteBuffer.allocate(8).position(8);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p[1].read(full));
        assertTrue(e.getMessage().contains("pos=8") && e.getMessage().contains("lim=8"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p[1].read(ByteBuffer.allocate(8).asReadOnlyBuffer()));
        p[0].write(ascii("x"));
        ByteBuffer room = ByteBuffer.allocate(8);
        assertEquals(1, await(loop, p[1].read(room)), "the refused reads left the slot free");
    }

    @Test
    void readExactlyZeroCompletesAtOnceAndLeavesTheSlotFree() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        LoopFuture<ByteBuffer> none = p[1].readExactly(0);
        assertTrue(none.isDone(), none.toString());
        assertEquals(0, none.result().remaining());
        p[0].write(ascii("ok\n"));
        assertEquals("ok", await(loop, p[1].readLine(10)));
        assertEquals(0, await(loop, p[1].readExactly(0)).remaining(), "with bytes buffered too");
    }

    /**
     * A null argument is the caller's bug whatever state the connection is in: refused at once,
     * naming the parameter, rather than a failed future on a closed connection that hides it.
     */
    @Test
    void nullArgumentsAreRefusedByNameOpenOrClosed() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        assertNullsRefused(p[1]);
        p[0].write(ascii("still"));
        assertEquals("still", ascii(await(loop, p[1].readExactly(5))), "the refused calls left the connection as it was");
        await(loop, p[0].close());
        assertNullsRefused(p[0]);
    }

    private static void assertNullsRefused(Connection c) {
        String state = c.isOpen() ? "open" : "closed";
        assertEquals("src", assertThrows(NullPointerException.class, () -> c.write((ByteBuffer) null), state).getMessage());
        assertEquals("bytes", assertThrows(NullPointerException.class, () -> c.write((byte[]) null), state).getMessage());
        assertEquals("delimiter", assertThrows(NullPointerException.class, () -> c.readUntil(null, 10), state).getMessage());
        assertEquals("dst", assertThrows(NullPointerException.class, () -> c.read(null), state).getMessage());
    }

    // ------------------------------------------------------------------ threads

    @Test
    void callsFromAnotherThreadWhileTheLoopRunsAreRefusedAndCallSoonIsTheWayAcross() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        Promise<Void> running = loop.newPromise();
        loop.callSoon(() -> running.complete(null));
        Thread loopThread = Thread.ofPlatform().name("the-loop").start(loop::runForever);
        try {
            running.toCompletableFuture().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            String here = Thread.currentThread().getName();
            IllegalStateException w = assertThrows(IllegalStateException.class, () -> p[0].write(ascii("racing\n")));
            assertTrue(w.getMessage().contains("write") && w.getMessage().contains(here), w.getMessage());
            assertThrows(IllegalStateException.class, () -> p[1].readLine(100));
            assertThrows(IllegalStateException.class, () -> p[0].close());
            loop.callSoon(() -> p[0].write(ascii("handed over\n")));
        } finally {
            loop.stop();
            loopThread.join(PATIENCE.toMillis());
        }
        // the loop no longer runs: this thread may use the connections again
        assertEquals("handed over", await(loop, p[1].readLine(100)));
        assertTrue(p[0].isOpen());
    }

    // ------------------------------------------------------------------ memory

    /**
     * A connection waiting for the rest of a line it has one byte of allocates for that byte, not a
     * read buffer or the line limit: what a loop allocates while 20 such connections each get their
     * byte stays far below one 64 KiB buffer each. Counted in bytes the loop thread allocated, which
     * do not depend on timing.
     */
    @Test
    void aConnectionHoldingOneByteOfALineDoesNotAllocateALineBuffer() throws Exception {
        Loop loop = open();
        int n = 20;
        int limit = 64 * 1024;
        List<Connection> accepted = new ArrayList<>();
        Server server = listen(loop, accepted::add);
        List<Connection> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clients.add(await(loop, connect(loop, server)));
        }
        awaitTrue(loop, n + " accepted", () -> accepted.size() == n);
        // warm up the path once, on a connection of its own
        Connection[] warm = pair(loop);
        LoopFuture<String> warmLine = warm[1].readLine(limit);
        warm[0].write(ascii("w"));
        spin(loop, 5);
        warm[0].write(ascii("\n"));
        assertEquals("w", await(loop, warmLine));

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        List<LoopFuture<String>> lines = new ArrayList<>();
        for (Connection c : accepted) {
            lines.add(c.readLine(limit));
        }
        for (Connection c : clients) {
            c.write(ascii("x"));
        }
        spin(loop, 10);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        for (LoopFuture<String> l : lines) {
            assertFalse(l.isDone(), "no line is complete yet: " + l);
        }
        assertTrue(allocated < n * 8L * 1024, "the loop allocated " + allocated + " bytes for " + n
                + " connections holding one byte each (" + allocated / n + " per connection)");
        for (Connection c : clients) {
            c.write(ascii("\n"));
        }
        for (LoopFuture<String> l : lines) {
            assertEquals("x", await(loop, l));
        }
    }

    // ------------------------------------------------------------------ cancelled connects

    @Test
    void aConnectGivenUpBeforeItCompletesClosesItsSocket() throws Exception {
        Loop loop = open();
        Server server = listen(loop, c -> c.setHandler((conn, data) -> conn.write(data)));
        Connection[] warm = pair(loop); // lazily opened resources are counted in
        warm[0].close();
        awaitTrue(loop, "the warm-up closed", () -> server.connections().isEmpty());
        long before = Fds.count();
        List<LoopFuture<Connection>> given = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            LoopFuture<Connection> f = connect(loop, server);
            assertTrue(cancel(f));
            given.add(f);
        }
        spin(loop, 5);
        awaitTrue(loop, "the server saw every given-up connection close", () -> server.connections().isEmpty());
        if (before >= 0) {
            awaitTrue(loop, "descriptors back to " + before + " (now " + Fds.count() + ")", () -> Fds.count() == before);
        }
        assertTrue(given.stream().allMatch(LoopFuture::isCancelled));
    }

    @Test
    void aCancelledReadOnAConnectionThatThenClosesFailsNothingElse() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        LoopFuture<String> line = p[1].readLine(100);
        cancel(line);
        p[0].abort();
        Throwable e = awaitFailure(loop, p[1].readLine(100));
        assertInstanceOf(java.io.IOException.class, e);
        assertTrue(line.isCancelled());
        assertThrows(CancellationException.class, line::result);
        assertEquals(List.of(), reported, "nothing reached the loop's exception handler");
    }
}
