package dev.loop.linux;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The executor a Netty {@code IoHandler} is given when the loop drives it: it knows the thread
 * that owns the loop right now, and runs the rare work Netty defers (a registration cancelled, or
 * an operation submitted, from another thread) at the driver's next poll. Thread-safe.
 *
 * <p>The owner is whichever thread polls, or calls the socket SPI while the loop is not running:
 * either way that thread owns the loop at that moment, and Netty must treat it as the loop
 * thread.
 */
public final class LoopThreadExecutor implements ThreadAwareExecutor {
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Runnable wakeup;
    private volatile Thread owner;

    /** {@code wakeup} makes the driver's poll return, so deferred work runs soon. */
    public LoopThreadExecutor(Runnable wakeup) {
        this.wakeup = wakeup;
    }

    /**
     * Makes the calling thread the owner. Written only when it changes: called on every poll, a
     * volatile write each time would be a full fence per loop iteration for nothing.
     */
    public void enter() {
        Thread current = Thread.currentThread();
        if (owner != current) {
            owner = current;
        }
    }

    @Override
    public boolean isExecutorThread(Thread thread) {
        return thread == owner;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        wakeup.run();
    }

    /**
     * Registers {@code handle} with {@code netty} on the owning thread, turning the checked
     * {@code Exception} Netty declares into the {@code IOException} the socket SPI throws.
     */
    public static IoRegistration register(IoHandler netty, IoHandle handle, String backend) throws IOException {
        try {
            return netty.register(handle);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("registering " + handle + " with " + backend + " failed", e);
        }
    }

    /** Runs what Netty deferred; on the owning thread. */
    public void runPending() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            r.run();
        }
    }
}
