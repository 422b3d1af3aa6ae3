package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopMetrics;
import dev.loop.net.Server;
import dev.loop.net.Connection;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the loop's metrics count of its connections, per backend and transport: accepts, connections
 * opened and closed, bytes both ways (what the application reads and writes, under TLS the
 * plaintext), TLS handshakes and their failures.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetMetricsContract extends StreamSuite {

    @Test
    void anEchoOnOneLoopCountsBothEndsOfItsConnection() throws Exception {
        Loop loop = open();
        Server server = echoServer(loop);
        int size = 100_000;
        byte[] data = randomBytes(new Random(7), size);
        assertArrayEquals(data, await(loop, echo(loop, server, data, new Random(8))));
        LoopMetrics m = until(loop, x -> x.connectionsOpen() == 0);
        assertEquals(1, m.accepts());
        assertEquals(0, m.acceptFailures());
        assertEquals(2, m.connectionsOpened(), "the client's end and the server's");
        assertEquals(2, m.connectionsClosed());
        assertEquals(2L * size, m.bytesIn(), "the server read it, then the client read it back");
        assertEquals(2L * size, m.bytesOut());
        assertEquals(isTls() ? 2 : 0, m.tlsHandshakes());
        assertEquals(0, m.tlsFailures());
    }

    @Test
    void readsAndWritesAreCountedAsTheApplicationMadeThem() throws Exception {
        Loop loop = open();
        int[] deliveries = {0};
        Server server = listen(loop, c -> c.setHandler((conn, data) -> {
            deliveries[0]++; // one onData each, and one write of what it got
            conn.write(data);
        }));
        Connection client = await(loop, connect(loop, server));
        int writes = 5;
        for (int i = 0; i < writes; i++) {
            await(loop, client.write(ByteBuffer.wrap(new byte[1000 * (i + 1)])));
        }
        client.shutdownOutput();
        int clientReads = 0;
        long back = 0;
        ByteBuffer buf = ByteBuffer.allocate(4096);
        for (int n; (n = await(loop, client.read(buf.clear()))) >= 0; ) {
            clientReads++;
            back += n;
        }
        assertEquals(15_000, back);
        LoopMetrics m = loop.metrics();
        assertTrue(deliveries[0] > 0);
        assertEquals(deliveries[0] + clientReads, m.streamReads(), "each onData and each read that returned bytes");
        assertEquals(writes + deliveries[0], m.streamWrites(), "the client's writes and the server's echoes");
        assertEquals(0, m.datagramsIn() + m.datagramsOut());
        client.close();
    }

    /**
     * The backends this project ships count their system calls, each under its own names; a
     * backend that counts nothing (the simulator: it makes none) shows none.
     */
    @Test
    void theBackendCountsItsSystemCallsWhereItCanSeeThem() throws Exception {
        Loop loop = open();
        Map<String, Long> before = loop.metrics().backendCounters();
        Server server = echoServer(loop);
        byte[] data = randomBytes(new Random(9), 10_000);
        assertArrayEquals(data, await(loop, echo(loop, server, data, new Random(10))));
        Map<String, Long> after = loop.metrics().backendCounters();
        assertEquals(before.keySet(), after.keySet(), "a backend's counters are fixed");
        List<String> expected = switch (loop.backendName()) {
            case "select" -> List.of("select");
            case "epoll" -> List.of("epoll_wait", "read", "write");
            case "io_uring" -> List.of("io_uring_enter", "sqe", "cqe");
            case "sim" -> List.of();
            default -> null; // a backend from elsewhere: whatever it counts, it only rises
        };
        if (expected != null) {
            assertEquals(expected, List.copyOf(after.keySet()), "the names docs/METRICS.md lists, in its order");
        }
        for (String name : after.keySet()) {
            long moved = after.get(name) - before.get(name);
            assertTrue(moved >= 0, name + " fell: " + before + " -> " + after);
            // every counter of a shipped backend counts something an echo over its sockets does
            // (io_uring's reads and writes are among its submissions and completions)
            assertTrue(expected == null || moved > 0, name + " did not move in an echo: " + before + " -> " + after);
        }
    }

    @Test
    void aPeerThatFailsItsHandshakeIsCountedOnce() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(isTls(), "TLS only");
        assumeKernelSockets("the failing peer is a JDK socket");
        Loop loop = open();
        Server server = echoServer(loop);
        InetSocketAddress at = (InetSocketAddress) server.localSocketAddress();
        try (Socket plain = new Socket(at.getAddress(), at.getPort())) {
            OutputStream o = plain.getOutputStream();
            // a handshake record header with a body that is no ClientHello
            o.write(new byte[] {22, 3, 3, 0, 8, 9, 9, 9, 9, 9, 9, 9, 9});
            o.flush();
            LoopMetrics m = until(loop, x -> x.tlsFailures() > 0);
            assertEquals(1, m.tlsFailures());
            assertEquals(0, m.tlsHandshakes());
            assertEquals(1, m.accepts());
        }
    }

    /** Runs the loop until its metrics satisfy {@code done}, failing after {@link #PATIENCE}. */
    private static LoopMetrics until(Loop loop, Predicate<LoopMetrics> done) {
        long end = System.nanoTime() + PATIENCE.toNanos();
        LoopMetrics m = loop.metrics();
        while (!done.test(m)) {
            assertTrue(System.nanoTime() < end, "metrics never got there: " + m);
            spin(loop, 1);
            m = loop.metrics();
        }
        return m;
    }
}
