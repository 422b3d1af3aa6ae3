package dev.loop.iouring;

import io.netty.channel.unix.Buffer;
import java.nio.ByteBuffer;

/**
 * A socket's send buffer and the send through it, held only while it holds bytes and then given
 * back to the loop's spares whole ({@link IoUringNetIo#takeSendBuffer}), so neither the buffer nor
 * this state costs an idle socket anything, and a busy one allocates nothing per send. Loop
 * thread only.
 */
final class Outbound {
    static final int SIZE = 64 * 1024;

    final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
    final long address = Buffer.memoryAddress(buffer);
    /** The send in flight, or 0. */
    long id;
    boolean cancelled;
    /** {@code [0, end)} is taken and not yet sent; {@code [0, sending)} is in flight. */
    int sending;
    int end;

    /** Empty again, for the next socket that sends. */
    Outbound reset() {
        id = 0;
        cancelled = false;
        sending = 0;
        end = 0;
        buffer.clear();
        return this;
    }
}
