package dev.loop.epoll;

import dev.loop.spi.IoReady;
import dev.loop.spi.Readiness;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.unix.FileDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What the socket kinds (listening, stream, datagram) share on epoll: one {@link LinuxSocket}, one Netty registration, the
 * translation of raw epoll bits into {@link IoReady} bits, and a close that releases the file
 * descriptor exactly once. Not thread-safe: loop thread only.
 *
 * <p>Interest is level-triggered. The socket is registered with Netty, and added to epoll, on the
 * first interest that asks for something (so an accepted socket can still move to another loop
 * until then, see {@link EpollNetIo#adopt}), and the registration is changed only when the wanted ops differ from the last submitted ones
 * (one {@code epoll_ctl} per change). Asking for nothing does not remove the descriptor (Netty's
 * {@code submit(NONE)} deletes it but remembers it as added, so the next submit would fail); it
 * switches to {@link #PAUSED}, an edge-triggered empty mask: {@code EPOLLERR} and {@code EPOLLHUP},
 * which epoll reports whatever the mask, then arrive once instead of on every poll, so a paused
 * socket whose peer hung up cannot spin the loop.
 */
abstract class EpollChannel implements EpollIoHandle {
    private static final System.Logger LOG = System.getLogger("dev.loop.epoll");

    /** Registered but asking for nothing: see the class comment. */
    static final EpollIoOps PAUSED = EpollIoOps.EPOLLET;

    static final int EPOLLIN = EpollIoOps.EPOLLIN.value();
    static final int EPOLLOUT = EpollIoOps.EPOLLOUT.value();
    static final int EPOLLERR = EpollIoOps.EPOLLERR.value();
    static final int EPOLLRDHUP = EpollIoOps.EPOLLRDHUP.value();
    /** The peer closed both directions (or the socket was never connected); Netty has no constant. */
    static final int EPOLLHUP = 0x10;

    final EpollNetIo net;
    final LinuxSocket socket;
    IoReady ready;
    private IoRegistration registration; // null until the first interest that asks for something
    private EpollIoOps submitted;
    private boolean closed;

    EpollChannel(EpollNetIo net, LinuxSocket socket, IoReady ready) {
        this.net = net;
        this.socket = socket;
        this.ready = ready;
    }

    /** The epoll ops for "read" and "write" in this socket's present state; {@link #PAUSED} for none. */
    abstract EpollIoOps opsFor(boolean read, boolean write);

    public final void interest(boolean read, boolean write) {
        if (closed) {
            return;
        }
        interestAsked(read);
        EpollIoOps wanted = opsFor(read, write);
        if (wanted == submitted || (submitted == null && wanted == PAUSED)) {
            return; // unchanged, or nothing wanted yet: no system call
        }
        try {
            if (registration == null) {
                registration = net.register(this);
            }
            registration.submit(wanted);
        } catch (IOException e) {
            throw new IllegalStateException("registering " + this + " with epoll failed", e);
        } catch (UncheckedIOException e) {
            throw new IllegalStateException("epoll_ctl for " + this + " failed", e.getCause());
        }
        submitted = wanted;
    }

    /** Told of every interest asked for, before epoll is: a kind that holds received data reports it here. */
    void interestAsked(boolean read) {
    }

    /**
     * Called by Netty inside {@code epoll_wait}'s dispatch: translate and hand over, nothing else.
     * Never throws ({@link Readiness#deliver}): Netty treats an exception here as a broken loop,
     * logs it and sleeps a second.
     */
    @Override
    public final void handle(IoRegistration r, IoEvent event) {
        int bits = readyBits(event);
        IoReady rd = ready;
        if (bits == 0 || rd == null || closed) {
            return;
        }
        Readiness.deliver(rd, bits, this, net.failures());
    }

    /** The {@link IoReady} bits of one of Netty's epoll events. */
    static int readyBits(IoEvent event) {
        int ev = ((EpollIoEvent) event).ops().value();
        int bits = 0;
        if ((ev & EPOLLIN) != 0) {
            bits |= IoReady.READ;
        }
        if ((ev & EPOLLOUT) != 0) {
            bits |= IoReady.WRITE;
        }
        if ((ev & EPOLLERR) != 0) {
            bits |= IoReady.ERROR;
        }
        if ((ev & (EPOLLRDHUP | EPOLLHUP)) != 0) {
            bits |= IoReady.HANGUP;
        }
        return bits;
    }

    @Override
    public final FileDescriptor fd() {
        return socket;
    }

    public final boolean isOpen() {
        return !closed;
    }

    /**
     * Cancels the registration, then closes the descriptor, once: a second call (ours, or Netty's
     * when the loop closes) does nothing, so a descriptor number reused by a newer socket is never
     * closed by mistake.
     */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (registration != null) {
            net.unregistered(this);
            try {
                registration.cancel(); // EPOLL_CTL_DEL before close: the fd number may be reused at once
            } catch (RuntimeException e) {
                net.failures().log(LOG, System.Logger.Level.DEBUG, "cancelling the epoll registration of " + this + " failed", e, this);
            }
        }
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to do with a socket that failed to close
        }
    }
}
