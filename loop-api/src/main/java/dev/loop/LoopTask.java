package dev.loop;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * The engine's {@link Task}: a {@link DefaultPromise} that completes itself from its body, plus
 * the state of one suspended computation. Awaiting a future registers the task itself as the
 * future's callback and waking goes through a {@link Runnable} made once per task, so suspending
 * and resuming allocate nothing beyond what the mechanism needs.
 *
 * <p>Not thread-safe: apart from {@link #cancel()} (carried to the loop when called elsewhere) and
 * the read side of the future, everything runs on the loop thread or inside the task while it
 * holds the loop thread's turn.
 */
final class LoopTask<T> extends DefaultPromise<T> implements Task<T>, Consumer<LoopFuture<?>> {
    // Where the task is. Exactly one wake-up source is armed in each suspended state.
    static final int NEW = 0;       // step() queued, body not started
    static final int SCHEDULED = 1; // step() queued (yieldNow, or woken by cancel)
    static final int RUNNING = 2;
    static final int WAITING = 3;   // registered on waitingOn; accept() wakes it
    static final int SLEEPING = 4;  // sleepTimer runs step()
    static final int DONE = 5;

    private final TaskScheduler scheduler;
    private final EventLoop loop;
    private final TaskBody<T> body;
    private final long id;
    /** The one Runnable given to callSoon and timers to continue this task. */
    final Runnable stepper = this::step;

    /** The mechanism's per-task object: a Continuation, or a thread baton. */
    Object strand;
    int state = NEW;
    private LoopFuture<?> waitingOn;
    private TimerHandle sleepTimer;
    /** A yieldNow whose suspension failed left its step() queued: the next one is ignored. */
    private boolean staleStep;

    // Cancellation, counted as asyncio does: requests not yet withdrawn, and those not yet delivered.
    private boolean mustCancel;
    /** A cancel from another thread, on its way to the loop: a task not started yet never starts. */
    private volatile boolean cancelSent;
    private int cancelRequests;
    private int undelivered;

    /** Task-local values, copy-on-write, shared with the tasks this one spawns (see TaskLocal). */
    Object[] locals = TaskLocal.EMPTY;

    // Intrusive membership of the scheduler's lists (live tasks, then failed unretrieved ones).
    LoopTask<?> prev;
    LoopTask<?> next;
    byte list;
    volatile boolean retrieved;

    LoopTask(TaskScheduler scheduler, EventLoop loop, TaskBody<T> body, long id) {
        super(loop);
        this.scheduler = scheduler;
        this.loop = loop;
        this.body = body;
        this.id = id;
    }

    /** The task running on this thread right now, or null (a callback, or no loop). */
    static LoopTask<?> current() {
        EventLoop l = EventLoop.current();
        return l == null ? null : l.tasks().current;
    }

    EventLoop eventLoop() {
        return loop;
    }

    long id() {
        return id;
    }

    Runnable bodyRunner() {
        return this::runBody;
    }

    // ------------------------------------------------------------------ running

    /** Runs inside the strand: the body, then the completion. Nothing escapes. */
    private void runBody() {
        T value = null;
        Throwable error = null;
        try {
            value = body.call();
        } catch (Throwable t) {
            error = t;
        }
        state = DONE;
        scheduler.unlink(this);
        if (error == null) {
            if (mustCancel) {
                super.cancel(); // cancelled right before it returned: asyncio counts it cancelled
            } else {
                super.tryComplete(value);
            }
        } else if (error instanceof CancellationException) {
            super.cancel();
        } else {
            super.tryFail(error);
            scheduler.failed(this);
        }
        mustCancel = false;
    }

    /** The continuation of a queued or sleeping task; ignored in any other state. */
    private void step() {
        if (staleStep) {
            staleStep = false;
            return;
        }
        switch (state) {
            case NEW -> {
                if (mustCancel || cancelSent || scheduler.isClosing()) {
                    // Cancelled before it ever ran: the body never starts (asyncio does the same).
                    state = DONE;
                    scheduler.unlink(this);
                    mustCancel = false;
                    super.cancel();
                    return;
                }
                scheduler.link(this);
                scheduler.mechanism().start(this);
                scheduler.resume(this);
            }
            case SCHEDULED, SLEEPING -> {
                sleepTimer = null;
                scheduler.resume(this);
            }
            default -> {
                // woken another way meanwhile
            }
        }
    }

    /** A done-callback of the future being awaited: resume right here, in the future's dispatch. */
    @Override
    public void accept(LoopFuture<?> f) {
        if (state == WAITING && waitingOn == f) {
            waitingOn = null;
            scheduler.resume(this);
        }
    }

    // ------------------------------------------------------------------ suspension points (inside the task)

    <V> V await(LoopFuture<V> f) {
        if (f.isDone()) {
            return f.result(); // no suspension, no turn given up
        }
        if (f == this) {
            throw new IllegalStateException(name() + " awaits itself: it would wait forever. Await another task, "
                    + "or return the value");
        }
        LoopFuture<V> g = f.loop() == loop ? f : Async.marshal(f, loop);
        if (g.isDone()) {
            return g.result(); // the other loop's future completed meanwhile
        }
        waitingOn = g;
        state = WAITING;
        g.onDone(this);
        try {
            scheduler.mechanism().suspend(this);
        } catch (RuntimeException | Error e) {
            g.removeCallback(this);
            waitingOn = null;
            state = RUNNING;
            throw e;
        }
        deliverCancel();
        return g.result();
    }

    void sleep(Duration d) {
        if (d.isNegative() || d.isZero()) {
            yieldNow();
            return;
        }
        TimerHandle h = loop.callLater(d, stepper);
        sleepTimer = h;
        state = SLEEPING;
        try {
            scheduler.mechanism().suspend(this);
        } catch (RuntimeException | Error e) {
            h.cancel();
            sleepTimer = null;
            state = RUNNING;
            throw e;
        }
        deliverCancel();
    }

    void yieldNow() {
        state = SCHEDULED;
        loop.callSoon(stepper);
        try {
            scheduler.mechanism().suspend(this);
        } catch (RuntimeException | Error e) {
            staleStep = true;
            state = RUNNING;
            throw e;
        }
        deliverCancel();
    }

    private void deliverCancel() {
        if (mustCancel) {
            mustCancel = false;
            undelivered = 0;
            throw new CancellationException(name() + " was cancelled");
        }
    }

    // ------------------------------------------------------------------ cancellation

    @Override
    public boolean cancel() {
        if (!loop.inLoop()) {
            if (isDone()) {
                return false;
            }
            cancelSent = true;
            loop.callSoon(this::cancel);
            return true;
        }
        if (state == DONE || isDone()) {
            return false;
        }
        cancelRequests++;
        undelivered++;
        mustCancel = true;
        if (state == WAITING) {
            // Like asyncio: cancel what we wait for; we wake when it is done. A future that cannot
            // be cancelled (already done, or not ours to cancel) is abandoned and we wake now.
            LoopFuture<?> f = waitingOn;
            if (!Async.cancelFuture(f)) {
                wakeNow();
            }
        } else if (state == SLEEPING) {
            sleepTimer.cancel();
            wakeNow();
        }
        // NEW, SCHEDULED: step() is queued and delivers it; RUNNING: the next suspension does.
        return true;
    }

    private void wakeNow() {
        if (waitingOn != null) {
            waitingOn.removeCallback(this);
            waitingOn = null;
        }
        sleepTimer = null;
        state = SCHEDULED;
        loop.callSoon(stepper);
    }

    @Override
    public int cancelling() {
        return cancelRequests;
    }

    @Override
    public int uncancel() {
        if (cancelRequests > 0 && --cancelRequests == 0) {
            mustCancel = false;
            undelivered = 0;
        }
        return cancelRequests;
    }

    /**
     * Withdraws a request made by structured code (a timeout, a task group). If it was never
     * delivered it must not be delivered later, unless another undelivered request remains.
     */
    int withdrawCancel(boolean delivered) {
        if (!delivered && undelivered > 0 && --undelivered == 0) {
            mustCancel = false;
        }
        return uncancel();
    }

    /** Re-arms a cancellation that structured code caught while it had to keep waiting. */
    void redeliverCancel() {
        mustCancel = true;
        undelivered++;
    }

    // ------------------------------------------------------------------ the future side

    @Override
    protected void onRetrieved() {
        retrieved = true;
        if (list == TaskScheduler.FAILED && loop.inLoop()) {
            scheduler.unlink(this);
        }
    }

    @Override
    public void complete(T value) {
        throw notAPromise();
    }

    @Override
    public void fail(Throwable error) {
        throw notAPromise();
    }

    @Override
    public boolean tryComplete(T value) {
        throw notAPromise();
    }

    @Override
    public boolean tryFail(Throwable error) {
        throw notAPromise();
    }

    private UnsupportedOperationException notAPromise() {
        return new UnsupportedOperationException(name() + " completes when its body returns or throws; "
                + "use cancel() to stop it");
    }

    @Override
    public String name() {
        return "Task-" + id;
    }

    @Override
    public String toString() {
        return name() + "[" + state() + "]";
    }
}
