package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import dev.loop.net.ConnectionOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * What the suites of sockets under faults share, on every backend with sockets over plain TCP:
 * echo servers and exchanges, connecting in waves (the accept queue is finite), proof that a server
 * still serves, descriptor counts that must come back to where they were, nothing reported to the
 * loop's exception handler, and the figures docs/RELIABILITY.md quotes. Loopback only; the largest
 * counts run in one cell per backend ({@link #fullSize()}), the other cells run every fault at a
 * smaller size ({@link OpenFileLimitContract} has the open-file limit).
 */
public abstract class FaultSuite extends NetSuite {
    /** Descriptors kept free for the JVM, the build and the other side's accept queue. */
    static final int FD_HEADROOM = 512;

    // ------------------------------------------------------------------ servers and clients

    /** Push-style echo; closes after the peer's end of stream (the handler's default). */
    Server echoServer(Loop loop) throws IOException {
        return listen(loop, c -> c.setHandler((conn, data) -> conn.write(data)));
    }

    /** Reads until end of stream, completing with everything read. */
    static LoopFuture<byte[]> readAll(Connection c) {
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
    static LoopFuture<byte[]> exchange(Connection c, byte[] data) {
        c.write(data);
        c.shutdownOutput();
        return readAll(c);
    }

    /** Opens {@code n} connections to {@code server}, at most {@code wave} connecting at once (the accept queue is finite). */
    List<Connection> connectMany(Loop loop, Server server, int n, ConnectionOptions options) {
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
    void assertServes(Loop loop, Server server) {
        byte[] hello = "still here".getBytes(StandardCharsets.US_ASCII);
        Connection c = await(loop, connect(loop, server));
        assertArrayEquals(hello, await(loop, exchange(c, hello)), "the server answers after the fault");
        await(loop, c.close());
    }

    /**
     * Descriptors open once the loop and a connection were used, so lazily opened resources of the
     * JDK and the backend are counted in.
     */
    long settledFds(Loop loop) throws IOException {
        Server warm = echoServer(loop);
        assertServes(loop, warm);
        warm.close(true);
        spin(loop, 3);
        return Fds.count();
    }

    /** Waits until the descriptor count is back to {@code before} (a closed channel is released on the next poll). */
    static void assertNoFdLeaked(Loop loop, long before) {
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
    void figures(String fault, long startNanos, long fdsBefore, String what) {
        System.out.printf("fault figures [%s] %s: %s; %d ms; descriptors %d before, %d after%n", cell, fault, what,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), fdsBefore, Fds.count());
    }

    void assertNothingReported() {
        assertEquals(List.of(), reported, "errors reached the loop's exception handler");
    }

    static byte[] randomBytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }
}
