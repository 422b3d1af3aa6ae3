package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.LimitExceededException;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reading and writing a stream: a writer to a stalled reader stays within the high watermark and
 * resumes, and readExactly and readLine work across split packets and refuse an overlong line.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetStreamContract extends StreamSuite {

    // ------------------------------------------------------------------ backpressure

    @Test
    void aWriterToAStalledReaderStaysWithinTheHighWatermarkAndResumes() throws Exception {
        Loop loop = open();
        int chunk = 16 * 1024;
        int high = 64 * 1024;
        long total = 8L << 20;
        ConnectionOptions small = ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024).withWatermarks(16 * 1024, high);
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, ServerOptions.defaults().withAccepted(small), accepted::complete);
        Connection writer = await(loop, connect(loop, server, small));
        Connection reader = await(loop, accepted);
        long[] sent = {0};
        long[] maxQueued = {0};
        Promise<Void> allSent = loop.newPromise();
        byte[] data = new byte[chunk];
        Runnable[] pump = new Runnable[1];
        pump[0] = () -> {
            while (sent[0] < total) {
                writer.write(data);
                sent[0] += chunk;
                maxQueued[0] = Math.max(maxQueued[0], writer.queuedBytes());
                if (!writer.isWritable()) {
                    writer.drain().onDone(f -> pump[0].run());
                    return;
                }
            }
            writer.shutdownOutput();
            allSent.tryComplete(null);
        };
        loop.callSoon(pump[0]);
        Promise<Void> stalled = loop.newPromise();
        loop.callLater(Duration.ofMillis(100), () -> stalled.complete(null));
        await(loop, stalled);
        assertTrue(sent[0] < total, "the writer should be stalled by a reader that does not read");
        assertFalse(writer.isWritable());
        byte[] got = await(loop, readAll(reader));
        await(loop, allSent);
        assertEquals(total, got.length);
        assertTrue(maxQueued[0] <= high + chunk, "queued " + maxQueued[0] + " bytes, high watermark " + high);
    }

    // ------------------------------------------------------------------ stream helpers

    @Test
    void readExactlyAndReadLineAcrossSplitPacketsAndAnOverlongLine() throws Exception {
        Loop loop = open();
        Server server = listen(loop, c -> {
            c.write("abc".getBytes(StandardCharsets.US_ASCII));
            loop.callLater(Duration.ofMillis(10), () -> c.write("defgh".getBytes(StandardCharsets.US_ASCII)));
            loop.callLater(Duration.ofMillis(20), () -> c.write("ij12".getBytes(StandardCharsets.US_ASCII)));
            loop.callLater(Duration.ofMillis(30), () -> c.write("34|first\r\nsecond\n".getBytes(StandardCharsets.US_ASCII)));
            loop.callLater(Duration.ofMillis(40), () -> {
                c.write(("x".repeat(100) + "\nlast").getBytes(StandardCharsets.US_ASCII));
                c.shutdownOutput();
            });
        });
        Connection client = await(loop, connect(loop, server));
        ByteBuffer ten = await(loop, client.readExactly(10));
        assertEquals("abcdefghij", StandardCharsets.US_ASCII.decode(ten).toString());
        ByteBuffer until = await(loop, client.readUntil(new byte[] {'|'}, 10));
        assertEquals("1234|", StandardCharsets.US_ASCII.decode(until).toString());
        assertEquals("first", await(loop, client.readLine(50)));
        assertEquals("second", await(loop, client.readLine(50)));
        Throwable tooLong = awaitFailure(loop, client.readLine(50));
        assertInstanceOf(LimitExceededException.class, tooLong);
        assertTrue(tooLong.getMessage().contains("50"), tooLong.getMessage());
        ByteBuffer rest = await(loop, client.readExactly(101)); // the over-long line stayed buffered
        assertEquals('\n', rest.get(100));
        assertEquals("last", await(loop, client.readLine(50)));
        assertNull(await(loop, client.readLine(50)));
        assertInstanceOf(EOFException.class, awaitFailure(loop, client.readExactly(1)));
    }
}
