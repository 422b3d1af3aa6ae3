package dev.loop.iouring;

import io.netty.channel.unix.Buffer;
import io.netty.channel.uring.IoUringIoOps;
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

    // The last send operation made, kept for the next send of the same length by the same socket:
    // Netty's operations are immutable, and a conversation of equal-sized messages would
    // otherwise make one per message.
    private IoUringIoOps sendOps;
    private int sendFd;
    private short sendData;
    private int sendLength;

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
