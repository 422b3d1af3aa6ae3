package dev.loop.engine;

import dev.loop.spi.TimerNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A timer as the engine keeps it: the queue node, the ready-queue entry once due and (through the
 * loop's subclass) the handle the user holds, all one object, so scheduling a timer allocates
 * exactly one. Its state word is settled by a CAS, so a cancel racing with the firing either wins
 * (the callback never runs) or loses.
 */
public class EngineTimer extends TimerNode implements Runnable {
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(EngineTimer.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Engine engine;
    private final Runnable callback;
    private volatile int state;

    /** A timer of {@code engine} due at {@code deadline}; queue it with {@link Engine#schedule}. */
    protected EngineTimer(Engine engine, long deadline, Runnable callback) {
        super(deadline);
        this.engine = engine;
        this.callback = engine.timerCallback(callback);
    }

    /** Runs the callback unless a cancel won the race; called from the loop's ready queue. */
    @Override
    public final void run() {
        if (STATE.compareAndSet(this, PENDING, DONE)) {
            callback.run();
        }
    }

    final Runnable callback() {
        return callback;
    }

    /**
     * Prevents the timer from running. Any thread.
     *
     * @return true if this call cancelled it; false if it had already run, started, or been cancelled
     */
    public final boolean cancel() {
        if (STATE.compareAndSet(this, PENDING, CANCELLED)) {
            engine.timerCancelled(this);
            return true;
        }
        return false;
    }

    public final boolean isCancelled() {
        return state == CANCELLED;
    }

    @Override
    public String toString() {
        String s = state == PENDING ? "pending" : state == DONE ? "done" : "cancelled";
        return "Timer[" + s + ", deadline=" + deadline() + ", " + callback + "]";
    }
}
