package dev.loop.iouring;

import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;

/**
 * Up to {@link #SIZE} handles of this backend under one Netty registration. Not thread-safe: loop
 * thread only.
 *
 * <p>Netty dispatches a completion to a registration by the id in the operation's 64-bit user
 * data and leaves 16 bits of it ({@code data}) to the registration. A registration per socket
 * costs each socket Netty's registration, its event object and an {@code AtomicBoolean} (104
 * bytes, against 32 for an epoll registration), which for thousands of idle connections was most
 * of what they cost beyond an epoll one. So handles share registrations: the 16 bits carry a
 * handle's slot here ({@value #SLOT_BITS} bits) and the operation's tag ({@value #TAG_BITS}
 * bits, {@link Ops}). A slot is given back only when its handle has no operation in flight, so a
 * completion never reaches the next handle in the same slot.
 */
final class Slab implements IoUringIoHandle {
    static final int TAG_BITS = 3;
    static final int TAG_MASK = (1 << TAG_BITS) - 1;
    static final int SLOT_BITS = 16 - TAG_BITS;
    static final int SIZE = 1 << SLOT_BITS;

    private final IoUringChannel[] slots = new IoUringChannel[SIZE];
    private final int[] free = new int[SIZE];
    private int freeCount;
    /** Slots below this have been handed out at least once. */
    private int used;
    private int occupied;
    IoRegistration registration;
    /** Whose queued submissions go out after each completion ({@link IoUringNetIo#submitAfterCompletion}); null in tests. */
    IoUringNetIo net;

    /** Puts {@code channel} in a free slot and returns it; -1 when the slab is full. */
    int take(IoUringChannel channel) {
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else if (used < SIZE) {
            slot = used++;
        } else {
            return -1;
        }
        slots[slot] = channel;
        occupied++;
        return slot;
    }

    /** Empties {@code slot}: its handle has nothing in flight any more. */
    void free(int slot) {
        slots[slot] = null;
        free[freeCount++] = slot;
        occupied--;
    }

    boolean hasRoom() {
        return occupied < SIZE;
    }

    /** The handle in {@code slot}, or null; for passes over every open handle. */
    IoUringChannel at(int slot) {
        return slots[slot];
    }

    /** Slots that may hold a handle: {@code [0, used)}. */
    int used() {
        return used;
    }

    /**
     * Called by Netty for each completion of an operation submitted through this registration:
     * hands it to the handle in the slot the data names. Never throws: Netty would only log it.
     */
    @Override
    public void handle(IoRegistration r, IoEvent event) {
        IoUringIoEvent e = (IoUringIoEvent) event;
        int data = e.data() & 0xFFFF;
        IoUringChannel c = slots[data >>> TAG_BITS];
        if (c != null) {
            c.completion(data & TAG_MASK, e.res(), e.flags());
            if (net != null) {
                net.submitAfterCompletion(); // what it asked for goes with Netty's next entry, not the next poll
            }
        }
    }

    /**
     * Netty closes its registrations when the loop closes; the handles in this slab were already
     * cancelled by the backend (see {@link IoUringNetIo#cancelAll()}) and are closed by it.
     */
    @Override
    public void close() {
    }
}
