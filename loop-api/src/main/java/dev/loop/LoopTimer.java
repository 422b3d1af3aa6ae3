package dev.loop;

import dev.loop.spi.TimerNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A timer as the engine keeps it: the queue node, the handle the user holds, and the ready-queue
 * entry once due, all one object, so scheduling a timer allocates exactly one.
 */
final class LoopTimer extends TimerNode implements TimerHandle, Runnable {
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(LoopTimer.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final EventLoop loop;
    private final Runnable callback;
    private volatile int state;

    LoopTimer(EventLoop loop, long deadline, Runnable callback) {
        super(deadline);
        this.loop = loop;
        this.callback = callback;
    }

    /** Runs the callback unless a cancel won the race; called from the loop's ready queue. */
    @Override
    public void run() {
        if (STATE.compareAndSet(this, PENDING, DONE)) {
            callback.run();
        }
    }

    Runnable callback() {
        return callback;
    }

    @Override
    public boolean cancel() {
        if (STATE.compareAndSet(this, PENDING, CANCELLED)) {
            loop.timerCancelled(this);
            return true;
        }
        return false;
    }

    @Override
    public boolean isCancelled() {
        return state == CANCELLED;
    }

    @Override
    public String toString() {
        String s = state == PENDING ? "pending" : state == DONE ? "done" : "cancelled";
        return "Timer[" + s + ", deadline=" + deadline() + ", " + callback + "]";
    }
}
