package dev.loop.iouring;

import io.netty.channel.uring.IoUringIoOps;

/**
 * The few io_uring operations this backend submits, built with {@link IoUringIoOps}'s public
 * constructor (Netty keeps its factories to itself). Field meanings follow {@code io_uring_sqe}:
 * {@code union1} is {@code off}/{@code addr2}, {@code union2} is {@code addr}, {@code union3} the
 * operation's flags. The {@code data} each carries comes back with its completion and says which
 * of a handle's operations completed.
 */
final class Ops {
    static final byte OP_POLL_ADD = 6;
    static final byte OP_ASYNC_CANCEL = 14;
    static final byte OP_SEND = 26;
    static final byte OP_RECV = 27;

    /**
     * Tags of a handle's operations, in the low {@link Slab#TAG_BITS} bits of the {@code data} each
     * carries (the handle's slot is above them, see {@link Slab}).
     */
    static final int RECV = 1;
    static final int SEND = 2;
    static final int POLL = 3;
    static final int CANCEL = 4;
    /** A socket's buffer-less wait for bytes to read. */
    static final int READ_POLL = 5;
    /** A socket's wait for room after {@code sendfile} found its send buffer full. */
    static final int WRITE_POLL = 6;

    /** {@code ioprio} flag of send and receive: wait for readiness before the first attempt. */
    static final short IORING_RECVSEND_POLL_FIRST = 1;

    /** Completion flag of a receive: the socket still holds bytes after it. */
    static final int IORING_CQE_F_SOCK_NONEMPTY = 1 << 2;

    static final int POLLIN = 0x1;
    static final int POLLOUT = 0x4;
    /** {@code send} must not raise SIGPIPE when the peer is gone: the error is reported instead. */
    static final int MSG_NOSIGNAL = 0x4000;

    /** Linux errno values the completions carry, negated. */
    static final int ECANCELED = 125;
    static final int ENOENT = 2;
    static final int EALREADY = 114;
    static final int EAGAIN = 11;
    static final int EINTR = 4;

    private Ops() {
    }

    /**
     * A receive into {@code [address, address + length)}. With {@code pollFirst} it arms its poll
     * before trying: right after the kernel said the socket was drained, a first attempt would
     * almost always find nothing and cost a failed {@code recv} before the poll is armed anyway.
     */
    static IoUringIoOps recv(int fd, long address, int length, boolean pollFirst, short data) {
        return new IoUringIoOps(OP_RECV, (byte) 0, pollFirst ? IORING_RECVSEND_POLL_FIRST : 0, fd, 0L, address,
                length, 0, data, (short) 0, (short) 0, 0, 0L);
    }

    static IoUringIoOps send(int fd, long address, int length, short data) {
        return new IoUringIoOps(OP_SEND, (byte) 0, (short) 0, fd, 0L, address, length, MSG_NOSIGNAL, data,
                (short) 0, (short) 0, 0, 0L);
    }

    /** A one-shot poll for {@code mask}; {@code data} tagged {@link #POLL} or {@link #READ_POLL}. */
    static IoUringIoOps poll(int fd, int mask, short data) {
        return new IoUringIoOps(OP_POLL_ADD, (byte) 0, (short) 0, fd, 0L, 0L, 0, mask, data,
                (short) 0, (short) 0, 0, 0L);
    }

    /** Cancels the operation whose submission returned {@code id}. */
    static IoUringIoOps cancel(long id, short data) {
        return new IoUringIoOps(OP_ASYNC_CANCEL, (byte) 0, (short) 0, -1, 0L, id, 0, 0, data,
                (short) 0, (short) 0, 0, 0L);
    }
}
