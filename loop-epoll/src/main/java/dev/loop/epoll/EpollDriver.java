package dev.loop.epoll;

import dev.loop.linux.NettyDriver;
import dev.loop.linux.PollContext;
import dev.loop.spi.IoCounters;
import dev.loop.spi.IoDriver;
import dev.loop.spi.NetIo;

/**
 * The {@link IoDriver} of backend {@code epoll}: drives Netty's native {@code EpollIoHandler} from
 * the loop's own iteration instead of Netty's event loop (hence its own name: the two are not the
 * same kind of thing). Not thread-safe, except
 * {@link #wakeup()}.
 *
 * <p>Netty asks two things of the code that drives it: an executor that knows its own thread (for
 * the rare registration cancelled from another thread), and a context it reads <em>live</em> inside
 * {@code run()} after publishing that it is about to block. The second is what makes wake-ups
 * safe: a wake-up that lands before Netty is inside {@code epoll_wait} is not lost, because
 * {@link PollContext#canBlock()} sees it and Netty polls without blocking.
 *
 * <p>Sockets ({@link #net()}) are Netty {@code LinuxSocket}s, each an {@code EpollIoHandle}
 * registered here; see {@link EpollNetIo}.
 */
final class EpollDriver extends NettyDriver {
    /**
     * Netty waits with {@code epoll_pwait2} (nanoseconds) where the kernel has it, else arms a
     * timerfd for short waits, so the engine never needs to park below a millisecond here.
     */
    private static final long RESOLUTION_NANOS = 1_000;

    // What this backend counts (docs/METRICS.md): its waits, and its stream sockets' reads and writes.
    static final int EPOLL_WAIT = 0;
    static final int READ = 1;
    static final int WRITE = 2;

    final IoCounters counters = new IoCounters("epoll_wait", "read", "write");
    private EpollNetIo net;

    EpollDriver() {
        super(EpollBackendProvider.NAME);
        drive(io.netty.channel.epoll.EpollIoHandler.newFactory().newHandler(executor));
        netty().initialize();
    }

    @Override
    public NetIo net() {
        if (net == null) {
            net = new EpollNetIo(this);
        }
        return net;
    }

    @Override
    public int poll(long timeoutNanos) {
        executor.enter();
        polls++;
        executor.runPending();
        if (timeoutNanos == 0 && (net == null || net.registeredSockets() == 0)) {
            // No socket is registered, so epoll_wait(0) could only report the wake-up eventfd or the
            // timerfd, and both are safe to leave unread: they are edge-triggered and Netty never
            // reads them, so a pending edge stays queued for the next blocking run(), which then
            // returns at once and settles Netty's pendingWakeup; the timerfd only serves Netty's
            // deadline, and our timers live in the engine. Skipping saves a system call per
            // non-blocking iteration of a loop without sockets.
            context.pollEnded();
            return 0;
        }
        if (timeoutNanos != 0) {
            sleeps++;
        }
        context.arm(timeoutNanos);
        counters.increment(EPOLL_WAIT); // Netty's run() is one epoll_wait (epoll_pwait2 where the kernel has it)
        try {
            return netty().run(context);
        } finally {
            // Cleared after the wait, never before it: a wake-up sent between the engine's
            // "about to sleep" and this poll must still stop the wait.
            context.pollEnded();
            executor.runPending();
        }
    }

    @Override
    public IoCounters counters() {
        return counters;
    }

    @Override
    public long resolutionNanos() {
        return RESOLUTION_NANOS;
    }

    @Override
    public void close() {
        executor.enter();
        netty().prepareToDestroy(); // cancels every registration and closes its handle
        executor.runPending();
        netty().destroy();          // closes the epoll fd, the eventfd and the timerfd
    }
}
