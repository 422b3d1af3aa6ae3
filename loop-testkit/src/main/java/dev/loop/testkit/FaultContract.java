package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.Connection;
import dev.loop.net.LimitExceededException;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sockets under faults, on every backend with sockets: many connections at once, peers that reset,
 * half-close with late readers, a reader that never reads, slowloris beside normal clients,
 * connect/close storms, and random garbage with abrupt closes ({@link OpenFileLimitContract} has
 * the open-file limit). Every test checks that nothing leaks (descriptors, from {@code /proc/self/fd}, back to
 * where they were), that nothing reached the loop's exception handler, and that the server still
 * serves afterwards. Loopback only; the largest counts run in one cell per backend
 * ({@link #fullSize()}), the other cells run every fault at a smaller size. docs/RELIABILITY.md
 * says what each test shows.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tcpSockets")
public class FaultContract extends NetSuite {

    /** Descriptors kept free for the JVM, the build and the other side's accept queue. */
    private static final int FD_HEADROOM = 512;

    // ------------------------------------------------------------------ servers and clients

    /** Push-style echo; closes after the peer's end of stream (the handler's default). */
    private Server echoServer(Loop loop) throws IOException {
        return listen(loop, c -> c.setHandler((conn, data) -> conn.write(data)));
    }

    /** Reads until end of stream, completing with everything read. */
    private static LoopFuture<byte[]> readAll(Connection c) {
        Promise<byte[]> all = c.loop().newPromise();
        readRest(c, ByteBuffer.allocate(4096), new ByteArrayOutputStream(), all);
        return all;
    }

    private static void readRest(Connection c, ByteBuffer buf, ByteArrayOutputStream acc, Promise<byte[]> all) {
        buf.clear();
        c.read(buf).onDone(f -> {
            if (!f.isSuccess()) {
                all.tryFail(f.exception());
            } else if (f.result() < 0) {
                all.complete(acc.toByteArray());
            } else {
                acc.write(buf.array(), 0, f.result());
                readRest(c, buf, acc, all);
            }
        });
    }

    /** Writes {@code data}, half-closes, and reads the answer to its end. */
    private static LoopFuture<byte[]> exchange(Connection c, byte[] data) {
        c.write(data);
        c.shutdownOutput();
        return readAll(c);
    }

    /** Opens {@code n} connections to {@code server}, at most {@code wave} connecting at once (the accept queue is finite). */
    private List<Connection> connectMany(Loop loop, Server server, int n, ConnectionOptions options) {
        List<Connection> all = new ArrayList<>(n);
        for (int at = 0; at < n; at += 200) {
            List<LoopFuture<Connection>> wave = new ArrayList<>();
            for (int i = at; i < Math.min(n, at + 200); i++) {
                wave.add(connect(loop, server, options));
            }
            all.addAll(await(loop, LoopFuture.all(loop, wave)));
        }
        return all;
    }

    /** One echo round trip on a new connection: the server still serves. */
    private void assertServes(Loop loop, Server server) {
        byte[] hello = "still here".getBytes(StandardCharsets.US_ASCII);
        Connection c = await(loop, connect(loop, server));
        assertArrayEquals(hello, await(loop, exchange(c, hello)), "the server answers after the fault");
        await(loop, c.close());
    }

    /**
     * Descriptors open once the loop and a connection were used, so lazily opened resources of the
     * JDK and the backend are counted in.
     */
    private long settledFds(Loop loop) throws IOException {
        Server warm = echoServer(loop);
        assertServes(loop, warm);
        warm.close(true);
        spin(loop, 3);
        return Fds.count();
    }

    /** Waits until the descriptor count is back to {@code before} (a closed channel is released on the next poll). */
    private static void assertNoFdLeaked(Loop loop, long before) {
        if (before < 0) {
            return; // no /proc here
        }
        long[] now = {0};
        try {
            awaitTrue(loop, "descriptors back to " + before, () -> (now[0] = Fds.count()) == before);
        } catch (AssertionError e) {
            throw new AssertionError("file descriptors leaked: " + before + " before, " + now[0] + " after", e);
        }
    }

    /**
     * Prints what a test did, for docs/RELIABILITY.md: one line per test and cell, with the time
     * since {@code startNanos} and the descriptor count before and after.
     */
    private void figures(String fault, long startNanos, long fdsBefore, String what) {
        System.out.printf("fault figures [%s] %s: %s; %d ms; descriptors %d before, %d after%n", cell, fault, what,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), fdsBefore, Fds.count());
    }

    private void assertNothingReported() {
        assertEquals(List.of(), reported, "errors reached the loop's exception handler");
    }

    private static byte[] randomBytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    // ------------------------------------------------------------------ many connections

    @Test
    void thousandsOfConcurrentConnectionsEchoByteExactAndLeakNoDescriptor() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        long room = (Fds.openFileLimit() - Math.max(0, before) - FD_HEADROOM) / 2; // both ends are in this process
        int n = (int) Math.min(fullSize() ? 2_000 : 300, room);
        assertTrue(n >= 100, "the open-file limit leaves room for only " + n + " connections");
        Server server = echoServer(loop);
        List<Connection> clients = connectMany(loop, server, n, ConnectionOptions.defaults());
        awaitTrue(loop, n + " accepted", () -> server.connections().size() == n);
        Random rnd = new Random(11);
        List<byte[]> sent = new ArrayList<>();
        List<LoopFuture<byte[]>> back = new ArrayList<>();
        for (Connection c : clients) { // all open at once, all exchanging at once
            byte[] data = randomBytes(rnd, 1 + rnd.nextInt(4096));
            sent.add(data);
            back.add(exchange(c, data));
        }
        List<byte[]> got = await(loop, LoopFuture.all(loop, back));
        for (int i = 0; i < n; i++) {
            assertArrayEquals(sent.get(i), got.get(i), "connection " + i + " of " + n);
        }
        for (Connection c : clients) {
            c.close();
        }
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        server.close();
        assertNoFdLeaked(loop, before);
        figures("many connections", start, before, n + " concurrent connections echoed " + sent.stream().mapToLong(b -> b.length).sum() + " bytes byte-exact");
        assertNothingReported();
    }

    // ------------------------------------------------------------------ resets

    /**
     * Peers that reset (SO_LINGER 0) while the server writes to them and while it waits in a read:
     * each server task sees an IOException on its own connection, and nothing else is disturbed.
     */
    @Test
    void peersThatResetMidWriteAndMidReadFailOnlyTheirOwnConnection() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        int n = fullSize() ? 200 : 40;
        ConnectionOptions small = ConnectionOptions.defaults().withBufferSizes(16 * 1024, 16 * 1024);
        List<String> outcomes = new ArrayList<>();
        AtomicInteger stuck = new AtomicInteger(); // server tasks now blocked in their write or read
        Server server = listen(loop, ServerOptions.defaults().withAccepted(small), c -> loop.spawn(() -> {
            try {
                String cmd = Async.await(c.readLine(100));
                LoopFuture<?> op = "write".equals(cmd) ? c.write(new byte[512 * 1024]) : c.readLine(100);
                stuck.incrementAndGet();
                Async.await(op);
                c.write("done\n".getBytes(StandardCharsets.US_ASCII));
                c.close();
            } catch (Exception e) {
                outcomes.add(e instanceof IOException ? "IOException" : e.toString());
            }
            return null;
        }));
        List<Connection> clients = connectMany(loop, server, n, small);
        for (int i = 0; i < n; i++) {
            clients.get(i).write((i % 2 == 0 ? "write\n" : "read\npartial line").getBytes(StandardCharsets.US_ASCII));
        }
        awaitTrue(loop, "every server task blocked", () -> stuck.get() == n);
        for (Connection c : clients) {
            c.abort();
        }
        awaitTrue(loop, "every server task ended", () -> outcomes.size() == n);
        assertEquals(n, outcomes.stream().filter("IOException"::equals).count(), outcomes.toString());
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        Connection after = await(loop, connect(loop, server));
        stuck.set(0);
        after.write("read\nok\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("done", await(loop, after.readLine(100)), "the server answers after the resets");
        after.close();
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        server.close();
        assertNoFdLeaked(loop, before);
        figures("resets", start, before, n + " peers reset, " + n / 2 + " mid-write and " + (n - n / 2) + " mid-read, each failed only its own connection");
        assertNothingReported();
    }

    // ------------------------------------------------------------------ half-close

    /**
     * Clients send, half-close at once and wait; the server starts reading only later. Every byte
     * sent before the half-close arrives, then end of stream, and the answer still reaches the
     * half-closed client.
     */
    @Test
    void halfClosedClientsGetTheirAnswerFromLateReaders() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        int n = fullSize() ? 100 : 30;
        Random delays = new Random(5);
        Server server = listen(loop, c -> {
            Duration late = Duration.ofMillis(20 + delays.nextInt(180));
            loop.spawn(() -> {
                Async.sleep(late);
                long count = 0;
                ByteBuffer buf = ByteBuffer.allocate(8192);
                for (int r; (r = Async.await(c.read(buf.clear()))) >= 0; ) {
                    count += r;
                }
                c.write(("got " + count + "\n").getBytes(StandardCharsets.US_ASCII));
                c.close();
                return null;
            });
        });
        Random rnd = new Random(6);
        List<Connection> clients = connectMany(loop, server, n, ConnectionOptions.defaults());
        List<Integer> sizes = new ArrayList<>();
        List<LoopFuture<byte[]>> answers = new ArrayList<>();
        for (Connection c : clients) {
            int size = 1 + rnd.nextInt(256 * 1024);
            sizes.add(size);
            answers.add(exchange(c, new byte[size]));
        }
        List<byte[]> got = await(loop, LoopFuture.all(loop, answers));
        for (int i = 0; i < n; i++) {
            assertEquals("got " + sizes.get(i) + "\n", new String(got.get(i), StandardCharsets.US_ASCII), "client " + i);
            assertTrue(clients.get(i).isInputShutdown());
            clients.get(i).close();
        }
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        server.close();
        assertNoFdLeaked(loop, before);
        figures("half-close", start, before, n + " half-closed clients sent " + sizes.stream().mapToLong(Integer::longValue).sum() + " bytes to late readers, all answered");
        assertNothingReported();
    }

    // ------------------------------------------------------------------ slow readers

    /**
     * Readers that never read: a server that writes as fast as {@code drain()} lets it holds at
     * most the high watermark plus one write per connection, and keeps serving others meanwhile;
     * when the readers go away, the writers fail and everything is released.
     */
    @Test
    void readersThatNeverReadCostNoMoreThanTheWatermarks() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        int slow = fullSize() ? 20 : 5;
        int chunk = 16 * 1024;
        int high = 64 * 1024;
        ConnectionOptions opts = ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024).withWatermarks(16 * 1024, high);
        long[] maxQueued = {0};
        List<Throwable> writerEnds = new ArrayList<>();
        byte[] data = new byte[chunk];
        Server server = listen(loop, ServerOptions.defaults().withAccepted(opts), c -> {
            Runnable[] pump = new Runnable[1];
            pump[0] = () -> {
                while (c.isWritable()) {
                    c.write(data);
                    maxQueued[0] = Math.max(maxQueued[0], c.queuedBytes());
                }
                c.drain().onDone(f -> {
                    if (f.isSuccess()) {
                        pump[0].run();
                    } else {
                        writerEnds.add(f.exception());
                    }
                });
            };
            loop.callSoon(pump[0]);
        });
        List<Connection> readers = connectMany(loop, server, slow, opts); // they never read
        runFor(loop, Duration.ofMillis(300));
        assertTrue(maxQueued[0] > 0 && maxQueued[0] <= high + chunk,
                "queued at most " + maxQueued[0] + " bytes for a reader that never reads; high watermark " + high);
        // the loop is not held up by them
        Server other = echoServer(loop);
        assertServes(loop, other);
        other.close();
        for (Connection r : readers) {
            r.abort();
        }
        awaitTrue(loop, "every writer failed", () -> writerEnds.size() == slow);
        for (Throwable e : writerEnds) {
            assertInstanceOf(IOException.class, e);
        }
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        server.close();
        assertNoFdLeaked(loop, before);
        figures("slow readers", start, before, slow + " readers that never read; at most " + maxQueued[0] + " bytes queued per connection (high watermark " + high + ")");
        assertNothingReported();
    }

    // ------------------------------------------------------------------ slowloris

    /**
     * Slowloris on a line protocol: many connections drip one byte of a line that never ends, a few
     * send an endless line fast; normal clients beside them keep their round trips within a
     * generous bound (the machine is shared: this catches a loop that stalls, not a slow one), the
     * fast ones are cut off at the line limit, and the drippers cost only what they sent.
     */
    @Test
    void slowlorisBesideNormalClientsDoesNotHoldThemUp() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        int drippers = fullSize() ? 300 : 60;
        int floods = 5;
        int normal = 10;
        int rounds = fullSize() ? 40 : 15;
        int maxLine = 8192;
        AtomicInteger cutOff = new AtomicInteger();
        Server server = listen(loop, c -> loop.spawn(() -> {
            try {
                for (String line; (line = Async.await(c.readLine(maxLine))) != null; ) {
                    c.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                }
            } catch (Exception e) {
                if (e instanceof LimitExceededException) {
                    cutOff.incrementAndGet();
                }
            } finally {
                c.close();
            }
            return null;
        }));
        List<Connection> slow = connectMany(loop, server, drippers, ConnectionOptions.defaults());
        List<Connection> fast = connectMany(loop, server, floods, ConnectionOptions.defaults());
        byte[] flood = new byte[1000];
        java.util.Arrays.fill(flood, (byte) 'f');
        TimerHandle[] drip = new TimerHandle[1];
        Runnable tick = new Runnable() {
            @Override
            public void run() {
                for (Connection c : slow) {
                    c.write(new byte[] {'s'});
                }
                for (Connection c : fast) {
                    if (c.isOpen()) {
                        c.write(flood);
                    }
                }
                drip[0] = loop.callLater(Duration.ofMillis(20), this);
            }
        };
        loop.callSoon(tick);
        List<LoopFuture<Void>> floodEnds = new ArrayList<>();
        for (Connection c : fast) {
            // cut off: end of stream, or a reset if the server closed with some of the flood unread
            Promise<Void> end = loop.newPromise();
            readAll(c).onDone(f -> end.complete(null));
            floodEnds.add(end);
        }

        long[] worstNanos = {0};
        List<LoopFuture<Void>> clients = new ArrayList<>();
        for (Connection c : connectMany(loop, server, normal, ConnectionOptions.defaults())) {
            clients.add(loop.spawn(() -> {
                for (int i = 0; i < rounds; i++) {
                    long t0 = System.nanoTime();
                    c.write(("ping " + i + "\n").getBytes(StandardCharsets.UTF_8));
                    assertEquals("ping " + i, Async.await(c.readLine(100)));
                    worstNanos[0] = Math.max(worstNanos[0], System.nanoTime() - t0);
                    Async.sleep(Duration.ofMillis(5));
                }
                c.close();
                return null;
            }));
        }
        await(loop, LoopFuture.all(loop, clients));
        await(loop, LoopFuture.all(loop, floodEnds)); // the server closed on them: end of stream
        for (Connection c : fast) {
            c.close();
        }
        drip[0].cancel();
        assertTrue(worstNanos[0] < TimeUnit.SECONDS.toNanos(2),
                "a normal round trip took " + TimeUnit.NANOSECONDS.toMillis(worstNanos[0]) + " ms beside " + drippers + " slowloris");
        assertEquals(floods, cutOff.get(), "the endless lines were cut off at " + maxLine + " bytes");
        for (Connection c : slow) {
            assertTrue(c.isOpen(), "a dripping client is only slow, not cut off");
            c.abort();
        }
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        server.close();
        assertNoFdLeaked(loop, before);
        figures("slowloris", start, before, drippers + " dripping and " + floods + " flooding beside " + normal + " x " + rounds + " round trips; worst round trip " + TimeUnit.NANOSECONDS.toMillis(worstNanos[0]) + " ms; " + cutOff.get() + " cut off at the line limit");
        assertNothingReported();
    }

    // ------------------------------------------------------------------ storms

    /**
     * Connect/close storms: waves of clients that close, reset or write-and-close right after
     * connecting, or give up on the connect before it completes, while the server closes every third
     * connection it accepts at once. Nothing is left open on either side.
     */
    @Test
    void connectAndCloseStormsLeaveNothingOpen() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        int total = fullSize() ? 2_000 : 400;
        int[] accepted = {0};
        Server server = listen(loop, c -> {
            if (accepted[0]++ % 3 == 0) {
                c.close();
            } else {
                c.setHandler((conn, data) -> conn.write(data));
            }
        });
        int closed = 0;
        for (int at = 0; at < total; at += 200) {
            List<LoopFuture<Void>> wave = new ArrayList<>();
            for (int i = at; i < Math.min(total, at + 200); i++) {
                int mode = i % 4;
                LoopFuture<Connection> f = connect(loop, server);
                if (mode == 3) {
                    f.toCompletableFuture().cancel(false); // the caller gives up before the connect is done
                    continue;
                }
                Promise<Void> done = loop.newPromise();
                f.onDone(cf -> {
                    Connection c = cf.result();
                    switch (mode) {
                        case 0 -> c.close();
                        case 1 -> c.abort();
                        default -> {
                            c.write(new byte[] {1});
                            c.close();
                        }
                    }
                    c.closeFuture().onDone(x -> done.complete(null));
                });
                wave.add(done);
            }
            await(loop, LoopFuture.all(loop, wave));
            closed += wave.size();
        }
        assertTrue(closed > total / 2);
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        assertServes(loop, server);
        server.close();
        assertNoFdLeaked(loop, before);
        figures("storms", start, before, total + " connects, closed, reset, written-and-closed or given up, in waves of 200");
        assertNothingReported();
    }

    // ------------------------------------------------------------------ garbage

    /**
     * Random binary garbage, in random pieces, to a server speaking a framed protocol (a length
     * byte and a zero, then that many bytes, echoed), with each client ending abruptly: a reset, a
     * close, or a half-close and a read to the end. The server ends each such connection on its own
     * (a protocol error, end of stream, a reset) and serves a well-formed client afterwards.
     */
    @Test
    void randomGarbageAndAbruptClosesEndOnlyTheirConnections() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        int n = fullSize() ? 300 : 60;
        byte[] zero = {0};
        AtomicInteger ended = new AtomicInteger();
        Server server = listen(loop, c -> loop.spawn(() -> {
            try {
                for (;;) {
                    ByteBuffer header = Async.await(c.readUntil(zero, 2));
                    int len = header.remaining() == 2 ? header.get(0) & 0xff : 0;
                    c.write(Async.await(c.readExactly(len)));
                }
            } catch (Exception e) {
                // LimitExceededException, EOFException, an IOException from a reset: this connection's end
            } finally {
                c.close();
                ended.incrementAndGet();
            }
            return null;
        }));
        Random rnd = new Random(17);
        List<Connection> clients = connectMany(loop, server, n, ConnectionOptions.defaults());
        List<LoopFuture<?>> ends = new ArrayList<>();
        for (Connection c : clients) {
            byte[] garbage = randomBytes(rnd, rnd.nextInt(32 * 1024));
            for (int at = 0; at < garbage.length; ) {
                int piece = Math.min(garbage.length - at, 1 + rnd.nextInt(4096));
                c.write(ByteBuffer.wrap(garbage, at, piece));
                at += piece;
            }
            switch (rnd.nextInt(3)) {
                case 0 -> c.abort();
                case 1 -> c.close();
                default -> {
                    c.shutdownOutput();
                    Promise<Void> end = loop.newPromise();
                    readAll(c).onDone(f -> {
                        c.close();
                        end.complete(null);
                    });
                    ends.add(end);
                }
            }
        }
        await(loop, LoopFuture.all(loop, ends));
        awaitTrue(loop, "every server task ended", () -> ended.get() == n);
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        Connection good = await(loop, connect(loop, server));
        good.write(new byte[] {3, 0, 'a', 'b', 'c'});
        assertEquals("abc", StandardCharsets.US_ASCII.decode(await(loop, good.readExactly(3))).toString());
        good.close();
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        server.close();
        assertNoFdLeaked(loop, before);
        figures("garbage", start, before, n + " clients sent random garbage and ended abruptly; a well-formed client was served after");
        assertNothingReported();
        assertFalse(loop.isClosed());
    }
}
