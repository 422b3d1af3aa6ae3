package dev.loop.epoll;

import dev.loop.spi.IoDriver;
import dev.loop.spi.NetIo;
import dev.loop.spi.Readiness;
import dev.loop.linux.LoopThreadExecutor;
import dev.loop.linux.PollContext;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

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
final class EpollDriver implements IoDriver {
    /**
     * Netty waits with {@code epoll_pwait2} (nanoseconds) where the kernel has it, else arms a
     * timerfd for short waits, so the engine never needs to park below a millisecond here.
     */
    private static final long RESOLUTION_NANOS = 1_000;
    private static final VarHandle WAKEUP_CALLS;

    static {
        try {
            WAKEUP_CALLS = MethodHandles.lookup().findVarHandle(EpollDriver.class, "wakeupCalls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LoopThreadExecutor executor = new LoopThreadExecutor(this::wakeup);
    private final PollContext context = new PollContext();
    private final io.netty.channel.IoHandler netty;
    private Readiness.Failures failures = Readiness.LOGGED;
    private EpollNetIo net;
    // Diagnostics for tests: wake-ups the engine asked for, polls, and polls that were allowed to
    // block. The engine asks at most once per sleep, so the atomic add costs nothing that matters.
    private volatile long wakeupCalls;
    private long polls;
    private long sleeps;

    EpollDriver() {
        this.netty = io.netty.channel.epoll.EpollIoHandler.newFactory().newHandler(executor);
        this.netty.initialize();
    }

    @Override
    public NetIo net() {
        if (net == null) {
            net = new EpollNetIo(this);
        }
        return net;
    }

    /** Registers a socket with Netty's handler; on the thread that owns the loop right now. */
    IoRegistration register(EpollIoHandle handle) throws IOException {
        return LoopThreadExecutor.register(netty, handle, EpollBackendProvider.NAME);
    }

    /**
     * Called by the socket SPI, which runs on the loop's thread or on any thread while the loop is
     * not running: either way the caller owns the loop now, so Netty must treat it as the loop
     * thread (a registration cancelled from "another" thread would be deferred to a task).
     */
    void enterFromLoopThread() {
        executor.enter();
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
        try {
            return netty.run(context);
        } finally {
            // Cleared after the wait, never before it: a wake-up sent between the engine's
            // "about to sleep" and this poll must still stop the wait.
            context.pollEnded();
            executor.runPending();
        }
    }

    @Override
    public void wakeup() {
        WAKEUP_CALLS.getAndAdd(this, 1L);
        context.wakeupRequested();
        netty.wakeup(); // one eventfd write, and only if Netty is (about to be) blocked
    }

    @Override
    public void reportFailuresTo(Readiness.Failures failures) {
        this.failures = failures;
    }

    /** Where receivers' failures go: see {@link Readiness#deliver}. */
    Readiness.Failures failures() {
        return failures;
    }

    @Override
    public long resolutionNanos() {
        return RESOLUTION_NANOS;
    }

    /** How many times {@link #wakeup()} was called (any thread). */
    long wakeupCalls() {
        return wakeupCalls;
    }

    /** Every poll, blocking or not; read on the loop thread or after it stopped. */
    long polls() {
        return polls;
    }

    /** Polls that were allowed to block (a non-zero timeout); read on the loop thread or after it stopped. */
    long sleeps() {
        return sleeps;
    }

    @Override
    public void close() {
        executor.enter();
        netty.prepareToDestroy(); // cancels every registration and closes its handle
        executor.runPending();
        netty.destroy();          // closes the epoll fd, the eventfd and the timerfd
    }
}
