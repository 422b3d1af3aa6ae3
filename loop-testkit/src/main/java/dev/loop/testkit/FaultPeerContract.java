package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.LimitExceededException;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
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
 * Peers that misbehave: resets mid-write and mid-read, half-closed clients and late readers, and
 * random garbage with abrupt closes. Every test checks that nothing leaks, that nothing reached the loop's exception handler, and that
 * the server still serves afterwards; docs/RELIABILITY.md says what each test shows.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tcpSockets")
public class FaultPeerContract extends FaultSuite {

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
