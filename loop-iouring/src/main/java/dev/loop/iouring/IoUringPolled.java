package dev.loop.iouring;

import dev.loop.spi.IoReady;
import io.netty.channel.unix.Socket;

/**
 * A descriptor whose readiness the ring reports with poll operations, for what is not worth a
 * completion path of its own: a program's watched descriptor, a UDP socket. Not thread-safe: loop
 * thread only.
 *
 * <p>A one-shot poll operation is in flight while something is asked for; each completion is
 * reported and the poll re-armed at the next pre-poll pass, after the callbacks ran. A poll looks
 * at the descriptor's state when it is armed, so what the program left unread is reported again:
 * level-triggered, as for sockets. A change of interest cancels the poll in flight and arms one
 * with the new mask when the cancel completes.
 */
abstract class IoUringPolled extends IoUringChannel {
    private static final int POLLERR = 0x8;
    private static final int POLLHUP = 0x10;

    private boolean readInterest;
    private boolean writeInterest;
    private long pollId;
    private int pollMask;
    private boolean cancelled;
    private boolean failed;

    IoUringPolled(IoUringNetIo net, Socket socket, int fd, IoReady ready) {
        super(net, socket, fd, ready);
    }

    public final void interest(boolean read, boolean write) {
        if (isClosing()) {
            return;
        }
        interestAsked(read);
        if (read == readInterest && write == writeInterest) {
            return;
        }
        readInterest = read;
        writeInterest = write;
        requestSubmit();
    }

    /** Told of every interest asked for: a kind that holds received data reports it here. */
    void interestAsked(boolean read) {
    }

    private int mask() {
        return (readInterest ? Ops.POLLIN : 0) | (writeInterest ? Ops.POLLOUT : 0);
    }

    @Override
    final boolean waitsForCallbacks() {
        return true; // re-armed at the next pre-poll pass, after the callbacks ran: see the class comment
    }

    @Override
    final void submitRequested() {
        int mask = mask();
        if (failed) {
            return;
        }
        if (pollId == 0) {
            if (mask != 0) {
                pollMask = mask;
                pollId = submit(Ops.poll(fd, mask, data(Ops.POLL)));
            }
        } else if (pollMask != mask && !cancelled) {
            cancelled = true; // re-armed with the new mask when the cancelled poll completes
            submit(Ops.cancel(pollId, data(Ops.CANCEL)));
        }
    }

    @Override
    final void completed(int op, int res, int flags) {
        pollId = 0;
        cancelled = false;
        if (isClosing()) {
            return;
        }
        if (res == -Ops.ECANCELED) {
            requestSubmit();
            return;
        }
        if (res < 0) {
            failed = true; // a descriptor the kernel cannot poll (closed meanwhile): say so once
            report(IoReady.ERROR | (readInterest ? IoReady.READ : 0) | (writeInterest ? IoReady.WRITE : 0));
            return;
        }
        int bits = 0;
        if (readInterest && (res & (Ops.POLLIN | POLLHUP | POLLERR)) != 0) {
            bits |= IoReady.READ;
        }
        if (writeInterest && (res & (Ops.POLLOUT | POLLERR)) != 0) {
            bits |= IoReady.WRITE;
        }
        report(bits);
        requestSubmit(); // level-triggered: look again after the callbacks ran
    }

    @Override
    final int levelReady() {
        return 0; // each re-armed poll reports what is still ready
    }

    @Override
    final void cancelInFlight() {
        if (pollId != 0 && !cancelled) {
            cancelled = true;
            submit(Ops.cancel(pollId, data(Ops.CANCEL)));
        }
    }
}
