package dev.loop.net.tls;

import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * STARTTLS: the bytes the connection queued before the switch, which still go to the socket as they
 * are, before the first TLS record. Not thread-safe (loop thread only).
 *
 * <p>The connection's queue flushes through the TLS layer as always; this passes exactly the
 * first {@code left} bytes of it through and nothing more, even when one gathering write spans the
 * boundary, so no byte is sent twice, encrypted when it should not be, or lost.
 */
final class PlainPrefix {
    private long left;

    PlainPrefix(long bytes) {
        this.left = bytes;
    }

    boolean done() {
        return left == 0;
    }

    /** Writes up to the rest of the prefix from {@code srcs} to {@code socket}; returns bytes written. */
    long write(IoTransport socket, ByteBuffer[] srcs, int offset, int length) throws IOException {
        int count = 0;
        long sum = 0;
        int cut = -1;       // the buffer that crosses the boundary, limited for this write
        int cutLimit = 0;
        while (count < length && sum < left) {
            ByteBuffer b = srcs[offset + count++];
            if (sum + b.remaining() > left) {
                cut = offset + count - 1;
                cutLimit = b.limit();
                b.limit(b.position() + (int) (left - sum));
            }
            sum += b.remaining();
        }
        long n;
        try {
            n = count == 1 ? socket.write(srcs[offset]) : socket.write(srcs, offset, count);
        } finally {
            if (cut >= 0) {
                srcs[cut].limit(cutLimit);
            }
        }
        left -= n;
        return n;
    }
}
