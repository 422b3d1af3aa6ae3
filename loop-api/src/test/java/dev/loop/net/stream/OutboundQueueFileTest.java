package dev.loop.net.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import dev.loop.spi.IoFileSender;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files in the outgoing queue over a transport the test controls: how much of a file is read
 * ahead of what the transport took, how much one flush moves, and where the file's bytes fall
 * among the writes; exact, with no socket.
 */
class OutboundQueueFileTest {
    @TempDir
    Path dir;
    private Loop loop;

    @BeforeEach
    void open() {
        loop = Loops.open(LoopOptions.defaults().withBackend("park"));
    }

    @AfterEach
    void close() {
        loop.close();
    }

    /** Takes at most {@code room} bytes until given more; records what it took and the file calls. */
    private static final class Sink implements IoTransport {
        final ByteArrayOutputStream taken = new ByteArrayOutputStream();
        final List<String> calls = new ArrayList<>();
        long room = Long.MAX_VALUE;
        IoFileSender sender;

        @Override public void attach(IoReady ready) { }
        @Override public boolean finishConnect() { return true; }
        @Override public int read(ByteBuffer dst) { return 0; }

        @Override
        public int write(ByteBuffer src) {
            int n = (int) Math.min(src.remaining(), room);
            byte[] b = new byte[n];
            src.get(b);
            taken.writeBytes(b);
            room -= n;
            calls.add("write " + n);
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override public IoFileSender fileSender(FileChannel file) { return sender; }
        @Override public void shutdownOutput() { }
        @Override public void interest(boolean read, boolean write) { }
        @Override public void close() { }
        @Override public void abort() { }
        @Override public SocketAddress localAddress() { return null; }
        @Override public SocketAddress remoteAddress() { return null; }
    }

    /** Counts the bytes read through it; the queue reads with positional reads only. */
    private static final class CountingFileChannel extends FileChannel {
        private final FileChannel inner;
        long read;

        CountingFileChannel(FileChannel inner) {
            this.inner = inner;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            int n = inner.read(dst, position);
            read += Math.max(n, 0);
            return n;
        }

        @Override public long size() throws IOException { return inner.size(); }
        @Override public int read(ByteBuffer dst) { throw new UnsupportedOperationException(); }
        @Override public long read(ByteBuffer[] dsts, int offset, int length) { throw new UnsupportedOperationException(); }
        @Override public int write(ByteBuffer src) { throw new UnsupportedOperationException(); }
        @Override public long write(ByteBuffer[] srcs, int offset, int length) { throw new UnsupportedOperationException(); }
        @Override public long position() { throw new UnsupportedOperationException(); }
        @Override public FileChannel position(long p) { throw new UnsupportedOperationException(); }
        @Override public FileChannel truncate(long size) { throw new UnsupportedOperationException(); }
        @Override public void force(boolean metaData) { }
        @Override public long transferTo(long position, long count, java.nio.channels.WritableByteChannel target) {
            throw new UnsupportedOperationException();
        }
        @Override public long transferFrom(java.nio.channels.ReadableByteChannel src, long position, long count) {
            throw new UnsupportedOperationException();
        }
        @Override public int write(ByteBuffer src, long position) { throw new UnsupportedOperationException(); }
        @Override public java.nio.MappedByteBuffer map(MapMode mode, long position, long size) {
            throw new UnsupportedOperationException();
        }
        @Override public java.nio.channels.FileLock lock(long position, long size, boolean shared) {
            throw new UnsupportedOperationException();
        }
        @Override public java.nio.channels.FileLock tryLock(long position, long size, boolean shared) {
            throw new UnsupportedOperationException();
        }
        @Override protected void implCloseChannel() throws IOException { inner.close(); }
    }

    private FileChannel file(byte[] content) throws IOException {
        Path p = Files.createTempFile(dir, "f", ".bin");
        Files.write(p, content);
        return FileChannel.open(p);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void theFallbackReadsTheNextChunkOnlyOnceTheTransportTookTheLast() throws Exception {
        byte[] content = new byte[1 << 20];
        new Random(1).nextBytes(content);
        OutboundQueue q = new OutboundQueue(loop, 1024, 4096);
        Sink sink = new Sink();
        try (CountingFileChannel f = new CountingFileChannel(file(content))) {
            Promise<Long> p = q.addFile(f, 0, content.length);
            for (int i = 0; i < 200; i++) {
                sink.room = 1000; // a peer that reads a little at a time
                q.flushTo(sink);
                assertTrue(f.read - sink.taken.size() <= QueuedFile.CHUNK, "read " + f.read + " bytes of the file"
                        + " while the transport took " + sink.taken.size() + ": more than a chunk ahead");
            }
            assertEquals(200_000, sink.taken.size());
            assertEquals(content.length - 200_000, q.queued(), "every unsent byte stays counted");
            assertFalse(p.isDone());
            sink.room = Long.MAX_VALUE;
            while (!q.isEmpty()) {
                q.flushTo(sink);
            }
            assertTrue(p.isSuccess());
            assertArrayEquals(content, sink.taken.toByteArray());
            assertEquals(content.length, f.read, "each byte read once");
        }
    }

    @Test
    void oneFlushMovesAtMostTheFileShareEvenToATransportThatTakesEverything() throws Exception {
        byte[] content = new byte[(int) (2 * OutboundQueue.FILE_SHARE + 100)];
        OutboundQueue q = new OutboundQueue(loop, 1024, 4096);
        Sink sink = new Sink();
        try (FileChannel f = file(content)) {
            Promise<Long> p = q.addFile(f, 0, content.length);
            assertEquals(OutboundQueue.FILE_SHARE, q.flushTo(sink));
            assertEquals(OutboundQueue.FILE_SHARE, q.flushTo(sink));
            assertEquals(100, q.flushTo(sink));
            assertTrue(p.isSuccess());
            assertEquals(content.length, (long) p.result());
        }
    }

    @Test
    void theSenderIsCalledBetweenTheWritesBeforeAndAfterAndAskedForAllThatIsLeft() throws Exception {
        byte[] content = ascii("0123456789");
        OutboundQueue q = new OutboundQueue(loop, 1024, 4096);
        Sink sink = new Sink();
        sink.sender = (file, position, count) -> {
            sink.calls.add("sendFile " + position + " " + count);
            long n = Math.min(count, 3); // a socket that takes three bytes at a time
            byte[] b = new byte[(int) n];
            file.read(ByteBuffer.wrap(b), position);
            sink.taken.writeBytes(b);
            return n;
        };
        try (FileChannel f = file(content)) {
            q.add(ByteBuffer.wrap(ascii("head ")));
            Promise<Long> p = q.addFile(f, 2, 7);
            q.add(ByteBuffer.wrap(ascii(" tail")));
            for (int i = 0; i < 5 && !q.isEmpty(); i++) {
                q.flushTo(sink);
            }
            assertEquals("head 2345678 tail", sink.taken.toString(StandardCharsets.US_ASCII));
            assertEquals(List.of("write 5", "sendFile 2 7", "sendFile 5 4", "sendFile 8 1", "write 5"), sink.calls,
                    "a short send ends the flush: the socket is full");
            assertEquals(7L, p.result());
        }
    }
}
