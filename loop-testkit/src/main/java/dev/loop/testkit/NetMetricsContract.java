package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopMetrics;
import dev.loop.net.Server;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
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
