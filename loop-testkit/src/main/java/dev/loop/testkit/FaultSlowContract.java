package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Slow peers: readers that never read cost no more than the watermarks, and slowloris beside normal
 * clients does not hold them up. Every test checks that nothing leaks, that nothing reached the loop's exception handler, and that
 * the server still serves afterwards; docs/RELIABILITY.md says what each test shows.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tcpSockets")
public class FaultSlowContract extends FaultSuite {

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
}
