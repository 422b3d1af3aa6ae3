package dev.loop.iouring;

import io.netty.channel.uring.IoUringIoOps;
import io.netty.util.internal.CleanableDirectBuffer;
import java.nio.ByteBuffer;

/**
 * A receive buffer and what a socket holds only while it receives into it ({@link IoUringSocket}):
 * the receive operations into it and where the bytes not yet handed out are. An idle socket holds
 * none, so none of this is a field of every socket. Given back to the loop's spares whole
 * ({@link Buffers#takeReceive}) and taken again by any socket, so a socket that wakes, receives
 * and gives its buffer back allocates nothing. Loop thread only.
 */
final class Inbound {
    /** The buffer's memory, freed by {@link Buffers} once no receive uses it and no spare is wanted. */
    private final CleanableDirectBuffer memory;
    final ByteBuffer buffer;
    final long address;
    final int capacity;
    /** The receive in flight, or 0. */
    long id;
    boolean cancelled;
    /** The receive in flight is being cancelled so that the buffer can go back. */
    boolean dropping;
    /** The last receive's completion said the socket still held bytes. */
    boolean socketHasMore;
    /**
     * Taken when the socket woke from a quiet spell (see {@link IoUringSocket#QUIET_NANOS}): given
     * back as soon as its bytes are handed out, unless the socket turns out to be busy.
     */
    boolean quiet;
    /** The receive in flight is the first after a wake from polling (see {@link #quiet}). */
    boolean wakeReceive;
    /** {@code [pos, end)} of the buffer: received and not yet handed out. */
    int pos;
    int end;
    int smallReceives;
    /** The size the buffer takes once its bytes are handed out; 0 to keep it. */
    int resizeAfterRead;
    /** The driver's sweep count at the last receive. */
    int lastReceiveSweep;

    // The receives into this buffer for the socket that last submitted one, kept while the same
    // socket takes it again: Netty's operations are immutable. A receive that tries at once is for
    // when the kernel said more bytes wait; one that arms its poll first for when it was drained.
    private IoUringIoOps recv;
    private IoUringIoOps recvPollFirst;
    private int opsFd;
    private short opsData;

    Inbound(CleanableDirectBuffer memory) {
        this.memory = memory;
        this.buffer = memory.buffer();
        this.address = Buffers.address(memory);
        this.capacity = buffer.capacity();
    }

    /** The receive to submit next on {@code fd}, tagged {@code data} ({@code IoUringChannel.data}). */
    IoUringIoOps receiveOps(int fd, short data) {
        if (recv == null || opsFd != fd || opsData != data) {
            recv = Ops.recv(fd, address, capacity, false, data);
            recvPollFirst = Ops.recv(fd, address, capacity, true, data);
            opsFd = fd;
            opsData = data;
        }
        return socketHasMore ? recv : recvPollFirst;
    }

    int unread() {
        return end - pos;
    }

    /** Grows on a full receive; shrinks after several that used under a quarter of the buffer. */
    void adapt(int received) {
        int cap = capacity;
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

    /** Empty again, for the next socket that receives. */
    Inbound reset() {
        id = 0;
        cancelled = false;
        dropping = false;
        socketHasMore = false;
        quiet = false;
        wakeReceive = false;
        pos = 0;
        end = 0;
        smallReceives = 0;
        resizeAfterRead = 0;
        lastReceiveSweep = 0;
        buffer.clear();
        return this;
    }

    /** Frees the memory: no receive uses it, and nothing will again. */
    void free() {
        memory.clean();
    }
}
