package dev.loop.net.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The record framing of {@link TlsRecords}: a record is whole only once its header and body have
 * arrived, however the reads cut them; several records read at once are all held; a header that
 * announces more than TLS allows goes to the engine at once (which refuses it) instead of making us
 * wait, or buffer, for it; bytes that are no TLS at all fail with the engine's error.
 */
class TlsRecordsTest {
    private final Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"));
    private final Chunks socket = new Chunks();
    private final TlsRecords rec = new TlsRecords(TlsBuffers.of(loop), socket);

    @AfterEach
    void close() {
        rec.release();
        loop.close();
    }

    @Test
    void aRecordSplitAcrossReadsIsWholeOnlyWithItsLastByte() throws Exception {
        byte[] r = record(0x17, 300);
        socket.arrive(Arrays.copyOfRange(r, 0, 3));                 // not even the header
        socket.arrive(Arrays.copyOfRange(r, 3, 100));               // the header and part of the body
        socket.arrive(Arrays.copyOfRange(r, 100, r.length - 1));    // all but one byte
        socket.arrive(Arrays.copyOfRange(r, r.length - 1, r.length));
        assertEquals(3, rec.readMore(0));
        assertFalse(rec.hasRecord());
        assertEquals(97, rec.readMore(0));
        assertFalse(rec.hasRecord());
        rec.readMore(0);
        assertFalse(rec.hasRecord(), "one byte short");
        assertEquals(1, rec.readMore(0));
        assertTrue(rec.hasRecord());
        assertEquals(r.length, rec.held().remaining(), "the bytes kept in order, nothing lost at the cuts");
        assertEquals(ByteBuffer.wrap(r), rec.held());
    }

    @Test
    void recordsCoalescedInOneReadAreAllHeld() throws Exception {
        byte[] a = record(0x17, 40);
        byte[] b = record(0x17, 50);
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        socket.arrive(both);
        assertEquals(both.length, rec.readMore(0));
        assertTrue(rec.hasRecord());
        assertEquals(both.length, rec.held().remaining());
    }

    @Test
    void anOversizeHeaderIsHandedOnAtOnceRatherThanWaitedFor() throws Exception {
        socket.arrive(new byte[] {0x17, 0x03, 0x03, (byte) 0xff, (byte) 0xff}); // 65,535 bytes announced
        rec.readMore(0);
        assertTrue(rec.hasRecord(), "more than a TLS record may be: the engine must see it now and refuse it");
    }

    @Test
    void bytesThatAreNoTlsFailWithTheEnginesError() throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine();
        engine.setUseClientMode(false); // a server, waiting for a ClientHello
        engine.beginHandshake();
        rec.engine = engine;
        byte[] http = new byte[5 + 8239]; // "GET /" read as a header announces 0x202f bytes
        byte[] line = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(line, 0, http, 0, line.length);
        socket.arrive(http);
        while (socket.pending() && rec.readMore(0) > 0) {
            // a plaintext peer's bytes, in as many reads as the buffer takes
        }
        assertTrue(rec.hasRecord());
        assertThrows(SSLException.class, rec::unwrapToHeld);
    }

    @Test
    void readAheadPrependedGoesBeforeWhatTheSocketReads() throws Exception {
        byte[] r = record(0x16, 20);
        rec.prepend(ByteBuffer.wrap(r, 0, 7));
        socket.arrive(Arrays.copyOfRange(r, 7, r.length));
        assertFalse(rec.hasRecord());
        rec.readMore(0);
        assertTrue(rec.hasRecord());
        assertEquals(ByteBuffer.wrap(r), rec.held());
    }

    /** A record of {@code type} with a TLS 1.2 header and {@code length} body bytes (not a valid one). */
    private static byte[] record(int type, int length) {
        byte[] r = new byte[5 + length];
        r[0] = (byte) type;
        r[1] = 3;
        r[2] = 3;
        r[3] = (byte) (length >>> 8);
        r[4] = (byte) length;
        for (int i = 5; i < r.length; i++) {
            r[i] = (byte) i;
        }
        return r;
    }

    /** A socket whose reads return the chunks that arrived, one per read at most, as the network cut them. */
    private static final class Chunks implements IoTransport {
        private final ArrayDeque<ByteBuffer> chunks = new ArrayDeque<>();

        void arrive(byte[] b) {
            chunks.add(ByteBuffer.wrap(b));
        }

        boolean pending() {
            return !chunks.isEmpty();
        }

        @Override
        public int read(ByteBuffer dst) {
            ByteBuffer c = chunks.peek();
            if (c == null) {
                return 0;
            }
            int n = Math.min(c.remaining(), dst.remaining());
            dst.put(dst.position(), c, c.position(), n).position(dst.position() + n);
            c.position(c.position() + n);
            if (!c.hasRemaining()) {
                chunks.poll();
            }
            return n;
        }

        @Override public void attach(IoReady ready) { }
        @Override public boolean finishConnect() { return true; }
        @Override public int write(ByteBuffer src) { return 0; }
        @Override public long write(ByteBuffer[] srcs, int offset, int length) { return 0; }
        @Override public void shutdownOutput() { }
        @Override public void interest(boolean read, boolean write) { }
        @Override public void close() { }
        @Override public void abort() { }
        @Override public InetSocketAddress localAddress() { return null; }
        @Override public InetSocketAddress remoteAddress() { return null; }
    }
}
