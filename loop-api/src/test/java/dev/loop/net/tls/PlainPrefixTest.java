package dev.loop.net.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** STARTTLS's plaintext prefix passes exactly its bytes, even when one gathering write spans its end. */
class PlainPrefixTest {
    /** Takes at most {@code room} bytes per write, as a kernel with a full buffer would. */
    private static final class Sink implements IoTransport {
        final ByteArrayOutputStream got = new ByteArrayOutputStream();
        int room;

        Sink(int room) {
            this.room = room;
        }

        @Override
        public int write(ByteBuffer src) {
            return (int) write(new ByteBuffer[] {src}, 0, 1);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length && n < room; i++) {
                while (srcs[i].hasRemaining() && n < room) {
                    got.write(srcs[i].get());
                    n++;
                }
            }
            return n;
        }

        @Override public void attach(IoReady ready) { }
        @Override public boolean finishConnect() { return true; }
        @Override public int read(ByteBuffer dst) { return 0; }
        @Override public void shutdownOutput() { }
        @Override public void interest(boolean read, boolean write) { }
        @Override public void close() { }
        @Override public void abort() { }
        @Override public InetSocketAddress localAddress() { return null; }
        @Override public InetSocketAddress remoteAddress() { return null; }
    }

    @Test
    void stopsExactlyAtTheEndOfThePrefixAcrossBuffers() throws Exception {
        ByteBuffer a = ByteBuffer.wrap(new byte[] {1, 2, 3});
        ByteBuffer b = ByteBuffer.wrap(new byte[] {4, 5, 6, 7}); // the prefix ends inside this one
        ByteBuffer c = ByteBuffer.wrap(new byte[] {8, 9});
        ByteBuffer[] srcs = {a, b, c};
        PlainPrefix prefix = new PlainPrefix(5);
        Sink sink = new Sink(2);
        assertEquals(2, prefix.write(sink, srcs, 0, 3));
        assertFalse(prefix.done());
        sink.room = 100;
        assertEquals(3, prefix.write(sink, srcs, 0, 3));
        assertTrue(prefix.done());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, sink.got.toByteArray());
        assertEquals(2, b.position(), "the rest of the crossing buffer (6, 7) stays for TLS");
        assertEquals(4, b.limit(), "its limit is restored");
        assertEquals(0, c.position());
    }
}
