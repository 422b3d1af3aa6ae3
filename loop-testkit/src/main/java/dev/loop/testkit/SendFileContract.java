package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code Connection.sendFile}: whole files and ranges byte-exact at the peer, in order with the
 * writes around them, at the pace of a slow reader without holding the file in memory, and the
 * same failures on every backend. Over TLS every test is also the test of the fallback that reads
 * the file into buffers: a file sent past the layer would reach the peer unencrypted and fail its
 * decryption.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#transportsOnce")
public class SendFileContract extends StreamSuite {
    /** Large enough to take many system calls and, through TLS, many chunks of the fallback. */
    private static final int LARGE = 8 << 20;

    @TempDir
    Path dir;
    private final List<FileChannel> open = new ArrayList<>();

    @AfterEach
    void closeFiles() throws IOException {
        for (FileChannel f : open) {
            f.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    /** A connected pair on one loop: [client, the server's side]. */
    private Connection[] pair(Loop loop) throws IOException {
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::complete);
        Connection client = await(loop, connect(loop, server));
        return new Connection[] {client, await(loop, accepted)};
    }

    private FileChannel file(byte[] content) throws IOException {
        Path p = Files.createTempFile(dir, "f", ".bin");
        Files.write(p, content);
        FileChannel f = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
        open.add(f);
        return f;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        ByteBuffer all = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            all.put(p);
        }
        return all.array();
    }

    private static byte[] slice(byte[] b, int from, int count) {
        byte[] s = new byte[count];
        System.arraycopy(b, from, s, 0, count);
        return s;
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The sender closes after what it queued; the peer's bytes until end of stream. */
    private static byte[] closeAndReadAll(Loop loop, Connection sender, Connection peer, Duration patience) {
        LoopFuture<byte[]> all = readAll(peer);
        sender.close();
        return await(loop, all, patience);
    }

    // ------------------------------------------------------------------ what arrives

    @Test
    void zeroBytesCompleteAtOnceAndSendNothing() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        FileChannel f = file(ascii("never sent"));
        assertEquals(0L, await(loop, p[1].sendFile(f, 0, 0)));
        assertEquals(0L, await(loop, p[1].sendFile(f, 10, 0)), "an empty range at the very end");
        p[1].write(ascii("after"));
        assertArrayEquals(ascii("after"), closeAndReadAll(loop, p[1], p[0], PATIENCE));
    }

    @Test
    void sendsASmallFileWhole() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(1), 1000);
        FileChannel f = file(content);
        LoopFuture<Long> sent = p[1].sendFile(f, 0, content.length);
        assertArrayEquals(content, closeAndReadAll(loop, p[1], p[0], PATIENCE));
        assertEquals(content.length, sent.result());
        assertEquals(0, f.position(), "the file's own position does not move");
    }

    @Test
    void sendsEightMebibytesThatHashTheSameAtThePeer() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(2), LARGE);
        FileChannel f = file(content);
        LoopFuture<Long> sent = p[1].sendFile(f, 0, content.length);
        byte[] got = closeAndReadAll(loop, p[1], p[0], PATIENCE.multipliedBy(3));
        assertEquals(content.length, got.length);
        assertArrayEquals(sha256(content), sha256(got));
        assertEquals((long) LARGE, sent.result());
    }

    @Test
    void sendsRangesOfAFile() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(3), 300_000);
        FileChannel f = file(content);
        // the first byte, the last, a range over 64 KiB chunk boundaries, one inside a chunk, the tail
        int[][] ranges = {{0, 1}, {299_999, 1}, {65_000, 140_000}, {70_000, 10}, {200_000, 100_000}};
        List<byte[]> expected = new ArrayList<>();
        List<LoopFuture<Long>> sent = new ArrayList<>();
        for (int[] r : ranges) {
            sent.add(p[1].sendFile(f, r[0], r[1]));
            expected.add(slice(content, r[0], r[1]));
        }
        assertArrayEquals(concat(expected.toArray(byte[][]::new)), closeAndReadAll(loop, p[1], p[0], PATIENCE));
        for (int i = 0; i < ranges.length; i++) {
            assertEquals(ranges[i][1], sent.get(i).result());
        }
    }

    @Test
    void keepsItsPlaceAmongWrites() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(4), 1 << 20);
        FileChannel f = file(content);
        byte[] big = randomBytes(new Random(5), 3 << 20); // queued behind a full socket: the file waits its turn
        List<String> done = new ArrayList<>();
        p[1].write(ascii("head")).onDone(x -> done.add("head"));
        p[1].write(big).onDone(x -> done.add("big"));
        p[1].sendFile(f, 0, content.length).onDone(x -> done.add("file"));
        p[1].write(ascii("middle")).onDone(x -> done.add("middle"));
        p[1].sendFile(f, 10, 20).onDone(x -> done.add("range"));
        p[1].write(ascii("tail")).onDone(x -> done.add("tail"));
        byte[] got = closeAndReadAll(loop, p[1], p[0], PATIENCE.multipliedBy(2));
        byte[] expected = concat(ascii("head"), big, content, ascii("middle"), slice(content, 10, 20), ascii("tail"));
        assertEquals(expected.length, got.length);
        assertArrayEquals(sha256(expected), sha256(got));
        assertEquals(List.of("head", "big", "file", "middle", "range", "tail"), done, "futures complete in order");
    }

    @Test
    void writesAfterAFileWaitForIt() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(6), LARGE);
        FileChannel f = file(content);
        p[1].sendFile(f, 0, content.length);
        assertFalse(p[1].isWritable(), "the file's unsent bytes count against the high watermark");
        assertTrue(p[1].queuedBytes() > 0 && p[1].queuedBytes() <= LARGE, "queued: " + p[1].queuedBytes());
        p[1].write(ascii("after"));
        byte[] got = closeAndReadAll(loop, p[1], p[0], PATIENCE.multipliedBy(3));
        assertArrayEquals(sha256(concat(content, ascii("after"))), sha256(got));
    }

    // ------------------------------------------------------------------ backpressure

    /**
     * A peer that reads nothing: the send stops where the socket buffers are full, holds no more
     * than a chunk of the file in memory (whatever the backend, TLS included), and goes on at the
     * peer's pace once it reads; {@code drain()} waits for the file.
     */
    @Test
    void aSlowReaderPacesTheFileAndMemoryStaysBounded() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        int size = 4 * LARGE;
        byte[] content = randomBytes(new Random(7), size);
        FileChannel f = file(content);
        spin(loop, 3); // TLS: the handshake's last records, before counting
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        LoopFuture<Long> sent = p[1].sendFile(f, 0, size);
        LoopFuture<Void> drained = p[1].drain();
        for (int i = 0; i < 20; i++) {
            spin(loop, 10);
            Thread.sleep(5); // lets a completion backend's sends complete: the peer still reads nothing
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
        assertFalse(sent.isDone(), "the peer read nothing, yet the whole file left");
        assertFalse(drained.isDone(), "drain() must wait for the file");
        long inFlight = size - p[1].queuedBytes();
        assertTrue(inFlight > 0, "nothing was sent");
        // The kernel's buffers on loopback hold a few MiB; a send that read the file ahead of the
        // peer would allocate the whole 32 MiB.
        assertTrue(allocated < size / 4, "allocated " + allocated + " bytes while " + inFlight
                + " bytes sat in the kernel's buffers");
        byte[] got = closeAndReadAll(loop, p[1], p[0], PATIENCE.multipliedBy(4));
        assertArrayEquals(sha256(content), sha256(got));
        assertTrue(drained.isDone() && sent.isSuccess());
    }

    // ------------------------------------------------------------------ failures

    @Test
    void aFileShorterThanTheRangeFailsNamingWhereItEnds() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        FileChannel f = file(randomBytes(new Random(8), 1000));
        Throwable e = awaitFailure(loop, p[1].sendFile(f, 500, 1000));
        assertInstanceOf(EOFException.class, e);
        assertTrue(e.getMessage().contains("position 1000"), e.getMessage());
        assertInstanceOf(EOFException.class, awaitFailure(loop, p[1].sendFile(f, 1, Long.MAX_VALUE)),
                "a range whose end overflows a long is no shorter file than any other");
        assertTrue(p[1].isOpen(), "nothing was sent: the connection is still usable");
        p[1].write(ascii("still fine"));
        assertArrayEquals(ascii("still fine"), closeAndReadAll(loop, p[1], p[0], PATIENCE));
    }

    /** A file cut short after it was queued fails where it now ends; the writes after it still go. */
    @Test
    void aFileThatShrinksWhileQueuedFailsWhereItEnds() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(9), 200_000);
        FileChannel f = file(content);
        byte[] big = randomBytes(new Random(10), LARGE); // fills the socket: the file waits behind it
        p[1].write(big);
        LoopFuture<Long> sent = p[1].sendFile(f, 0, content.length);
        p[1].write(ascii("after"));
        f.truncate(100_000);
        byte[] got = closeAndReadAll(loop, p[1], p[0], PATIENCE.multipliedBy(3));
        Throwable e = awaitFailure(loop, sent);
        assertInstanceOf(EOFException.class, e);
        assertTrue(e.getMessage().contains("position 100000"), e.getMessage());
        byte[] expected = concat(big, slice(content, 0, 100_000), ascii("after"));
        assertArrayEquals(sha256(expected), sha256(got));
    }

    @Test
    void aCancelledFileSendsNoMoreThanTheChunkInProgress() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(11), 1 << 20);
        FileChannel f = file(content);
        byte[] big = randomBytes(new Random(12), LARGE);
        p[1].write(big);
        LoopFuture<Long> sent = p[1].sendFile(f, 0, content.length);
        p[1].write(ascii("after"));
        assertTrue(sent.cancel(), "still queued behind the write");
        byte[] got = closeAndReadAll(loop, p[1], p[0], PATIENCE.multipliedBy(3));
        assertArrayEquals(sha256(concat(big, ascii("after"))), sha256(got), "not a byte of the file");
    }

    /** The peer resets mid-file: the future fails with a {@link SocketException} on every backend. */
    @Test
    void aPeerResetMidFileFailsTheSendTheSameEverywhere() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        byte[] content = randomBytes(new Random(13), 4 * LARGE);
        FileChannel f = file(content);
        LoopFuture<Long> sent = p[1].sendFile(f, 0, content.length);
        await(loop, p[0].readExactly(1000)); // the file has started
        p[0].abort();
        Throwable e = awaitFailure(loop, sent);
        assertInstanceOf(SocketException.class, e, "the peer reset: " + e);
        assertFalse(p[1].isOpen());
    }

    @Test
    void aClosedConnectionFailsTheSendAtOnce() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        FileChannel f = file(ascii("x"));
        await(loop, p[1].close());
        assertInstanceOf(ClosedChannelException.class, awaitFailure(loop, p[1].sendFile(f, 0, 1)));
    }

    @Test
    void aClosedFileFailsTheSendAndLeavesTheConnection() throws Exception {
        Loop loop = open();
        Connection[] p = pair(loop);
        FileChannel f = file(ascii("x"));
        f.close();
        assertInstanceOf(ClosedChannelException.class, awaitFailure(loop, p[1].sendFile(f, 0, 1)));
        assertTrue(p[1].isOpen());
    }
}
