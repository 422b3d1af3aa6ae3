package dev.loop.iouring;

import io.netty.channel.uring.IoUringIoOps;
import io.netty.util.internal.CleanableDirectBuffer;
import java.nio.ByteBuffer;

/**
 * What a socket holds only while it receives ({@link IoUringSocket}): the buffer, the receive
 * operations into it, and where the bytes not yet handed out are. An idle socket holds none, so
 * none of this is a field of every socket. Loop thread only.
 */
final class Inbound {
    /** The buffer's memory, given back to {@link Buffers} once no receive uses it. */
    final CleanableDirectBuffer memory;
    final ByteBuffer buffer;
    /** A receive that tries at once, for when the kernel said more bytes wait. */
    final IoUringIoOps recv;
    /** A receive that arms its poll first, for when the socket was just drained. */
    final IoUringIoOps recvPollFirst;
    /** The receive in flight, or 0. */
    long id;
    boolean cancelled;
    /** The receive in flight is being cancelled so that the buffer can go back. */
    boolean dropping;
    /** The last receive's completion said the socket still held bytes. */
    boolean socketHasMore;
    /** {@code [pos, end)} of the buffer: received and not yet handed out. */
    int pos;
    int end;
    int smallReceives;
    /** The size the buffer takes once its bytes are handed out; 0 to keep it. */
    int resizeAfterRead;
    /** The driver's sweep count at the last receive. */
    int lastReceiveSweep;

    /** @param data the {@code data} of the socket's receives ({@code IoUringChannel.data}) */
    Inbound(CleanableDirectBuffer memory, int fd, short data) {
        this.memory = memory;
        this.buffer = memory.buffer();
        long address = Buffers.address(memory);
        this.recv = Ops.recv(fd, address, buffer.capacity(), false, data);
        this.recvPollFirst = Ops.recv(fd, address, buffer.capacity(), true, data);
    }

    int unread() {
        return end - pos;
    }

    /** Grows on a full receive; shrinks after several that used under a quarter of the buffer. */
    void adapt(int received) {
        int cap = buffer.capacity();
        if (received == cap && cap < Buffers.MAX) {
            resizeAfterRead = cap * 2;
            smallReceives = 0;
        } else if (received < cap / 4 && cap > Buffers.MIN) {
            if (++smallReceives >= 4) {
                resizeAfterRead = cap / 2;
                smallReceives = 0;
            }
        } else {
            smallReceives = 0;
        }
    }
}
