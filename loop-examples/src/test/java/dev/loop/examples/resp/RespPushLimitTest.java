package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.ExternalTools;
import dev.loop.testkit.Cell;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A subscriber that does not read: the server holds its messages up to Redis' pub/sub output
 * limits, then disconnects it and counts it; the publisher and the other subscribers go on. On
 * every backend, with the subscriber and the publisher on loops of their own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RespPushLimitTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int MESSAGE = 4096;

    static Stream<Object[]> servers() {
        return dev.loop.testkit.Matrix.groups().map(c -> new Object[] {c});
    }

    private static RespServer start(Cell cell, long hard, long soft, int seconds) throws IOException {
        return RespServer.start(RespServer.Config.defaults()
                .withAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .withBackend(cell.backend()).withLoops(3).withPushLimits(hard, soft, seconds));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A subscriber to {@code channel} with a small receive buffer, confirmed, that then reads nothing. */
    private static Socket stalledSubscriber(RespServer server, String channel) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(server.address(), (int) WAIT.toMillis());
        s.setSoTimeout((int) WAIT.toMillis());
        s.getOutputStream().write(ascii("SUBSCRIBE " + channel + "\r\n"));
        assertEquals("*3\r\n$9\r\nsubscribe\r\n$" + channel.length() + "\r\n" + channel + "\r\n:1\r\n",
                RespProtocolTest.readReply(new BufferedInputStream(s.getInputStream(), 1)));
        return s;
    }

    /** Publishes {@code n} messages of {@link #MESSAGE} bytes, pipelined; the sum of the receiver counts. */
    private static long publish(Socket pub, String channel, int n) throws IOException {
        int burst = Math.min(n, 100);
        OutputStream o = pub.getOutputStream();
        InputStream in = new BufferedInputStream(pub.getInputStream());
        byte[] req = ascii("*3\r\n$7\r\nPUBLISH\r\n$" + channel.length() + "\r\n" + channel + "\r\n$" + MESSAGE + "\r\n"
                + "m".repeat(MESSAGE) + "\r\n");
        long sum = 0;
        for (int sent = 0; sent < n; sent += burst) {
            for (int i = 0; i < burst; i++) {
                o.write(req);
            }
            o.flush();
            for (int i = 0; i < burst; i++) {
                String r = RespProtocolTest.readReply(in);
                sum += Long.parseLong(r.substring(1, r.length() - 2));
            }
        }
        return sum;
    }

    private static void awaitDisconnections(RespServer server, long n) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (server.pushLimitDisconnections() < n && System.nanoTime() < deadline) {
            Thread.sleep(10); // waiting for the server's loops, which have nothing to notify a test with
        }
        assertEquals(n, server.pushLimitDisconnections());
    }

    @ParameterizedTest
    @MethodSource("servers")
    void aSubscriberPastTheHardLimitIsDisconnectedAndCounted(Cell cell) throws Exception {
        long hard = 256 * 1024;
        // 16 MB of messages: past what the kernel's buffers take for a peer that does not read, and the limit
        int n = 4000;
        try (RespServer server = start(cell, hard, hard, 60);
             Socket stalled = stalledSubscriber(server, "feed");
             Socket reader = ExternalTools.connect(server.address(), WAIT);
             Socket pub = ExternalTools.connect(server.address(), WAIT)) {
            reader.getOutputStream().write(ascii("SUBSCRIBE other\r\n"));
            InputStream readerIn = new BufferedInputStream(reader.getInputStream());
            RespProtocolTest.readReply(readerIn);
            long delivered = publish(pub, "feed", n);
            awaitDisconnections(server, 1);
            assertTrue(delivered < n, "once dropped, the stalled subscriber is no longer counted: " + delivered);
            // the others are served: a subscriber that reads gets its message
            publish(pub, "other", 20); // 80 KB: under the limit even before this subscriber reads
            for (int i = 0; i < 20; i++) {
                assertTrue(RespProtocolTest.readReply(readerIn).startsWith("*3\r\n$7\r\nmessage\r\n$5\r\nother\r\n"));
            }
            assertEquals(1, server.pushLimitDisconnections(), "counted once");
            assertTrue(endsWithin(stalled), "the stalled subscriber's connection was closed");
        }
    }

    @ParameterizedTest
    @MethodSource("servers")
    void aSubscriberAboveTheSoftLimitForTheGivenTimeIsDisconnected(Cell cell) throws Exception {
        // a soft limit held for 0 seconds: the second delivery that finds the queue above it drops the client
        try (RespServer server = start(cell, Long.MAX_VALUE / 4, 64 * 1024, 0);
             Socket stalled = stalledSubscriber(server, "feed");
             Socket pub = ExternalTools.connect(server.address(), WAIT)) {
            publish(pub, "feed", 4000);
            awaitDisconnections(server, 1);
            assertTrue(endsWithin(stalled));
        }
    }

    /** Reads what the server sent until the connection ends (EOF or reset); false if it stays open. */
    private static boolean endsWithin(Socket s) {
        try {
            InputStream in = s.getInputStream();
            byte[] b = new byte[64 * 1024];
            while (in.read(b) >= 0) {
                // draining what was sent before the close
            }
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
