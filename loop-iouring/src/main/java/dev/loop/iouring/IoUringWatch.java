package dev.loop.iouring;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoWatch;

/**
 * A program's own file descriptor watched on io_uring (asyncio's {@code add_reader} and
 * {@code add_writer}). Not thread-safe: loop thread only.
 *
 * <p>A one-shot poll operation is in flight while something is asked for; each completion is
 * reported and the poll re-armed at the next pre-poll pass, after the callbacks ran. A poll looks
 * at the descriptor's state when it is armed, so what the program left unread is reported again:
 * level-triggered, as for sockets. Closing the watch cancels the poll and never closes the
 * descriptor: it is the program's.
 */
final class IoUringWatch extends IoUringChannel implements IoWatch {
    private static final int POLLERR = 0x8;
    private static final int POLLHUP = 0x10;

    private boolean readInterest;
    private boolean writeInterest;
    private long pollId;
    private int pollMask;
    private boolean cancelled;
    private boolean failed;

    IoUringWatch(IoUringNetIo net, int fd, IoReady ready) {
        super(net, null, fd, ready);
    }

    @Override
    public void interest(boolean read, boolean write) {
        if (isClosing() || (read == readInterest && write == writeInterest)) {
            return;
        }
        readInterest = read;
        writeInterest = write;
        requestSubmit();
    }

    private int mask() {
        return (readInterest ? Ops.POLLIN : 0) | (writeInterest ? Ops.POLLOUT : 0);
    }

    @Override
    void submitRequested() {
        int mask = mask();
        if (failed) {
            return;
        }
        if (pollId == 0) {
            if (mask != 0) {
                pollMask = mask;
                pollId = submit(Ops.poll(fd, mask));
            }
        } else if (pollMask != mask && !cancelled) {
            cancelled = true; // re-armed with the new mask when the cancelled poll completes
            submit(Ops.cancel(pollId));
        }
    }

    @Override
    void completed(long op, int res, int flags) {
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
    int levelReady() {
        return 0; // each re-armed poll reports what is still ready
    }

    @Override
    void cancelInFlight() {
        if (pollId != 0 && !cancelled) {
            cancelled = true;
            submit(Ops.cancel(pollId));
        }
    }

    @Override
    void closeDescriptor() {
        net.unwatched(fd); // the descriptor is the program's: it stays open
    }

    @Override
    public String toString() {
        return "IoUringWatch[fd " + fd + "]";
    }
}
