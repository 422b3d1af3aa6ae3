package dev.loop.linux;

import dev.loop.spi.IoDriver;
import dev.loop.spi.Readiness;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoRegistration;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a driver over one of Netty's native {@link IoHandler}s is, whichever: the executor and the
 * live context Netty is given ({@link LoopThreadExecutor}, {@link PollContext}), the wake-up, the
 * registration of handles, where receivers' failures go, and the counts the backends' tests read.
 * A backend adds its poll and its close. Not thread-safe, except {@link #wakeup()}.
 */
public abstract class NettyDriver implements IoDriver {
    private static final VarHandle WAKEUP_CALLS;

    static {
        try {
            WAKEUP_CALLS = MethodHandles.lookup().findVarHandle(NettyDriver.class, "wakeupCalls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    protected final LoopThreadExecutor executor = new LoopThreadExecutor(this::wakeup);
    protected final PollContext context = new PollContext();
    private final String backend;
    private IoHandler netty;
    private Readiness.Failures failures = Readiness.LOGGED;
    // Diagnostics for tests: wake-ups the engine asked for, polls, and polls that were allowed to
    // block. The engine asks at most once per sleep, so the atomic add costs nothing that matters.
    private volatile long wakeupCalls;
    protected long polls;
    protected long sleeps;

    /** @param backend the backend's name, for errors */
    protected NettyDriver(String backend) {
        this.backend = backend;
    }

    /** Sets the handler this driver drives; once, from the subclass's constructor. */
    protected final void drive(IoHandler handler) {
        this.netty = handler;
    }

    /** The handler this driver drives. */
    protected final IoHandler netty() {
        return netty;
    }

    /** Registers a handle with Netty's handler; on the thread that owns the loop right now. */
    public final IoRegistration register(IoHandle handle) throws IOException {
        return LoopThreadExecutor.register(netty, handle, backend);
    }

    /**
     * Called by the socket SPI, which runs on the loop's thread or on any thread while the loop is
     * not running: either way the caller owns the loop now, so Netty must treat it as the loop
     * thread (a registration cancelled, or an operation submitted, from "another" thread would be
     * deferred to a task).
     */
    public final void enterFromLoopThread() {
        executor.enter();
    }

    @Override
    public final void wakeup() {
        WAKEUP_CALLS.getAndAdd(this, 1L);
        context.wakeupRequested();
        netty.wakeup(); // one eventfd write, and only if Netty is (about to be) blocked
    }

    @Override
    public final void reportFailuresTo(Readiness.Failures failures) {
        this.failures = failures;
    }

    /** Where receivers' failures go: see {@link Readiness#deliver}. */
    public final Readiness.Failures failures() {
        return failures;
    }

    /** How many times {@link #wakeup()} was called (any thread). */
    public final long wakeupCalls() {
        return wakeupCalls;
    }

    /** Every poll, blocking or not; read on the loop thread or after it stopped. */
    public final long polls() {
        return polls;
    }

    /** Polls that were allowed to block (a non-zero timeout); read on the loop thread or after it stopped. */
    public final long sleeps() {
        return sleeps;
    }
}
