package dev.loop.iouring;

import io.netty.channel.uring.IoUringIoOps;
import io.netty.util.internal.CleanableDirectBuffer;
import java.nio.ByteBuffer;

/**
 * A socket's send buffer and the send through it, held only while it holds bytes and then given
 * back to the loop's spares whole ({@link Buffers#takeSend}), so neither the buffer nor this state
 * costs an idle socket anything, and a busy one allocates nothing per send. Sized to what it was
 * taken for, from {@link Buffers#MIN} up to {@link #SIZE}: a socket that sends small messages
 * holds a small buffer. Loop thread only.
 */
final class Outbound {
    /** The most bytes a socket takes before they are sent, as a kernel's send buffer would. */
    static final int SIZE = Buffers.MAX;

    private final CleanableDirectBuffer memory;
    final ByteBuffer buffer;
    final long address;
    final int capacity;
    /** The send in flight, or 0. */
    long id;
    boolean cancelled;
    /** {@code [0, end)} is taken and not yet sent; {@code [0, sending)} is in flight. */
    int sending;
    int end;

    // The last send operation made, kept for the next send of the same length by the same socket:
    // Netty's operations are immutable, and a conversation of equal-sized messages would
    // otherwise make one per message.
    private IoUringIoOps sendOps;
    private int sendFd;
    private short sendData;
    private int sendLength;

    Outbound(CleanableDirectBuffer memory) {
        this.memory = memory;
        this.buffer = memory.buffer();
        this.address = Buffers.address(memory);
        this.capacity = buffer.capacity();
    }

    /** A send of {@code [0, sending)} on {@code fd}, tagged {@code data}; the last one if it matches. */
    IoUringIoOps sendOps(int fd, short data) {
        IoUringIoOps ops = sendOps;
        if (ops == null || sendFd != fd || sendData != data || sendLength != sending) {
            ops = Ops.send(fd, address, sending, data);
            sendOps = ops;
            sendFd = fd;
            sendData = data;
            sendLength = sending;
        }
        return ops;
    }

    /** Room left for bytes taken now: a buffer the kernel reads from cannot be exchanged for a larger one. */
    int room() {
        return (id != 0 ? capacity : SIZE) - end;
    }

    /** Empty again, for the next socket that sends. */
    Outbound reset() {
        id = 0;
        cancelled = false;
        sending = 0;
        end = 0;
        buffer.clear();
        return this;
    }

    /** Frees the memory: no send uses it, and nothing will again. */
    void free() {
        memory.clean();
    }
}
