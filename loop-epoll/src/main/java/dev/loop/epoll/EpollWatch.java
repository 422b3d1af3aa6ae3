package dev.loop.epoll;

import dev.loop.spi.IoReady;
import dev.loop.spi.Readiness;
import dev.loop.spi.IoWatch;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A program's own file descriptor watched on epoll (asyncio's {@code add_reader}/{@code add_writer}).
 * Not thread-safe: loop thread only.
 *
 * <p>It is registered at once, so a descriptor epoll refuses (closed, a regular file, already in
 * this epoll set) is reported when watching starts, and then paused (the edge-triggered empty mask
 * of {@link EpollChannel#PAUSED}) until interest asks for something. Closing the watch removes the
 * descriptor from epoll and never closes it: it is the program's. Netty closes every registered
 * handle when the loop closes, which for a watch means the same.
 */
final class EpollWatch implements EpollIoHandle, IoWatch {
    private static final System.Logger LOG = System.getLogger("dev.loop.epoll");
    private static final EpollIoOps READ_WRITE = EpollIoOps.EPOLLIN.with(EpollIoOps.EPOLLOUT);

    private final EpollNetIo net;
    private final FileDescriptor fd;
    private final IoReady ready;
    private final IoRegistration registration;
    private EpollIoOps submitted;
    private boolean closed;

    EpollWatch(EpollNetIo net, int fd, IoReady ready) throws IOException {
        this.net = net;
        this.fd = new FileDescriptor(fd);
        this.ready = ready;
        try {
            this.registration = net.register(this);
        } catch (IOException e) {
            throw new IOException("cannot watch file descriptor " + fd + " with epoll: " + e.getMessage()
                    + " (closed, a regular file or directory, or already watched by this loop)");
        }
        interest(false, false);
    }

    @Override
    public void interest(boolean read, boolean write) {
        if (closed) {
            return;
        }
        EpollIoOps wanted = read ? (write ? READ_WRITE : EpollIoOps.EPOLLIN) : (write ? EpollIoOps.EPOLLOUT
                : EpollChannel.PAUSED);
        if (wanted == submitted) {
            return;
        }
        try {
            registration.submit(wanted);
        } catch (UncheckedIOException e) {
            throw new IllegalStateException("epoll_ctl for " + this + " failed", e.getCause());
        }
        submitted = wanted;
    }

    /** Inside {@code epoll_wait}'s dispatch: translate and hand over; never throws. */
    @Override
    public void handle(IoRegistration r, IoEvent event) {
        int bits = EpollChannel.readyBits(event);
        if (bits == 0 || closed) {
            return;
        }
        Readiness.deliver(ready, bits, this, net.failures());
    }

    @Override
    public FileDescriptor fd() {
        return fd;
    }

    /** Removes the descriptor from epoll, once; never closes it. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        net.unwatched(fd.intValue());
        net.unregistered(this);
        try {
            registration.cancel();
        } catch (RuntimeException e) {
            net.failures().log(LOG, System.Logger.Level.DEBUG, "cancelling the epoll registration of " + this + " failed", e, this);
        }
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public String toString() {
        return "EpollWatch[fd " + fd.intValue() + "]";
    }
}
