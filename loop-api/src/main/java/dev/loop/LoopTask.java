package dev.loop;

import dev.loop.log.LogContext;
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
final class LoopTask<T> extends DefaultPromise<T> implements Task<T>, Consumer<LoopFuture<?>>, LogContext.Subject {
    // Where the task is. The invariant, as asyncio's Task keeps it: a suspended task has exactly one
    // wake-up source armed (its step() queued, a done-callback on waitingOn, or sleepTimer), never
    // two, and a running or finished task has none.
    private static final int NEW = 0;       // step() queued, body not started
    private static final int SCHEDULED = 1; // step() queued (yieldNow, or woken by cancel)
    private static final int RUNNING = 2;
    private static final int WAITING = 3;   // registered on waitingOn; accept() wakes it
    private static final int SLEEPING = 4;  // sleepTimer runs step()
    private static final int DONE = 5;

    private final TaskScheduler scheduler;
    private final DefaultLoop loop;
    private final TaskBody<T> body;
    private final long id;
    /** The one Runnable given to callSoon and timers to continue this task; named after it in logs. */
    private final Runnable stepper = new Step();

    /** The mechanism's per-task object: a Continuation, or a thread baton. */
    private Object strand;
    private int state = NEW;
    private LoopFuture<?> waitingOn;
    private TimerHandle sleepTimer;
    /** A yieldNow whose suspension failed left its step() queued: the next one is ignored. */
    private boolean staleStep;

    // Cancellation, counted as asyncio does: requests not yet withdrawn (cancelRequests), and those
    // pending (undelivered, mustCancel): to be thrown at the next suspension. A request made while
    // the task awaits a future it can cancel is handed on to that future instead (handedOn), and
    // the task's outcome follows the future's: cancelled if it ends cancelled, else its value.
    private boolean mustCancel;
    /** A cancel from another thread, on its way to the loop: a task not started yet never starts. */
    private volatile boolean cancelSent;
    private int cancelRequests;
    private int undelivered;
    private boolean handedOn;
    /** Pending requests delivered or handed on so far: tells structured code if its own still pends. */
    private int cancelEvents;
    /** The reason given with the latest cancel, for the message of the CancellationException. */
    private String cancelReason;

    /** Task-local values, copy-on-write, shared with the tasks this one spawns (see TaskLocal). */
    private Object[] locals = TaskLocal.EMPTY;

    // Membership of one of the scheduler's rosters (live tasks, or failed ones nobody looked at):
    // the links of an intrusive list, read and written by TaskRoster only.
    LoopTask<?> prev;
    LoopTask<?> next;
    TaskRoster roster;
    private volatile boolean retrieved;

    LoopTask(TaskScheduler scheduler, DefaultLoop loop, TaskBody<T> body, long id) {
        super(loop);
        this.scheduler = scheduler;
        this.loop = loop;
        this.body = body;
        this.id = id;
    }

    /** The task running on this thread right now, or null (a callback, or no loop). */
    static LoopTask<?> current() {
        DefaultLoop l = DefaultLoop.currentLoop();
        return l == null ? null : l.tasks().current;
    }

    /**
     * The task running on this thread, for {@code what}, which suspends it.
     *
     * @throws IllegalStateException outside a task, naming {@code what}
     */
    static LoopTask<?> require(String what) {
        LoopTask<?> t = current();
        if (t == null) {
            throw new IllegalStateException(what + "() called outside a task (thread " + Thread.currentThread().getName()
                    + "): it suspends the current task, so call it from code started with Loop.spawn or Loop.run");
        }
        return t;
    }

    // ------------------------------------------------------------------ what the scheduler and mechanisms use

    Object strand() {
        return strand;
    }

    void strand(Object s) {
        strand = s;
    }

    Object[] locals() {
        return locals;
    }

    void locals(Object[] values) {
        locals = values;
    }

    /** Queues the first step; the body starts in a later iteration. */
    void scheduleStart() {
        loop.callSoon(stepper);
    }

    /** The scheduler gives this task the loop thread. */
    void markRunning() {
        state = RUNNING;
    }

    /** The body has returned or thrown. */
    boolean finished() {
        return state == DONE;
    }

    boolean isRetrieved() {
        return retrieved;
    }

    DefaultLoop eventLoop() {
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
                super.cancel(cancelReason); // cancelled right before it returned: asyncio counts it cancelled
            } else {
                super.tryComplete(value);
            }
        } else if (error instanceof CancellationException) {
            super.cancel(cancelReason);
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
                    super.cancel(cancelReason);
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
        LoopFuture<V> g = f.loop() == loop ? f : Futures.marshal(f, loop);
        if (g.isDone()) {
            return g.result(); // the other loop's future completed meanwhile
        }
        waitingOn = g;
        state = WAITING;
        g.onDone(this);
        if (mustCancel && handOn()) {
            // Cancelled while running (by itself, or re-armed by structured code): handed on as if
            // it had come right after this suspension, so the task wakes as soon as g is done.
            mustCancel = false;
            undelivered = 0;
        }
        try {
            scheduler.mechanism().suspend(this);
        } catch (RuntimeException | Error e) {
            g.removeCallback(this);
            waitingOn = null;
            state = RUNNING;
            if (handedOn) { // g was cancelled for us, but the task goes on: keep the cancel pending
                handedOn = false;
                mustCancel = true;
                undelivered++;
            }
            throw e;
        }
        if (resumed() && g.isCancelled()) {
            throw cancellation(cancelReason); // the cancel we handed on came back: ours, with our reason
        }
        return g.result(); // g swallowed a cancel handed to it: its value, and the task goes on
    }

    void sleep(Duration d) {
        if (d.isNegative() || d.isZero() || mustCancel) {
            yieldNow(); // cancelled already: no timer, the cancel comes after one turn
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
        resumed();
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
        resumed();
    }

    /**
     * After every suspension: throws the pending cancellation, if any. Returns whether a cancel
     * was handed on to the future awaited meanwhile.
     */
    private boolean resumed() {
        boolean handed = handedOn;
        handedOn = false;
        if (mustCancel) {
            mustCancel = false;
            undelivered = 0;
            cancelEvents++;
            throw cancellation(cancelReason);
        }
        return handed;
    }

    // ------------------------------------------------------------------ cancellation

    @Override
    public boolean cancel() {
        return cancel(null);
    }

    @Override
    public boolean cancel(String reason) {
        if (!loop.inLoop()) {
            if (isDone()) {
                return false;
            }
            cancelSent = true;
            try {
                loop.callSoon(() -> cancel(reason));
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                return false; // the loop closed meanwhile, and its close ended every task
            }
            return true;
        }
        if (state == DONE || isDone()) {
            return false;
        }
        cancelRequests++;
        cancelReason = reason;
        if (state == WAITING && handOn()) {
            return true; // we wake when what we await is done, and follow its outcome
        }
        undelivered++;
        mustCancel = true;
        if (state == WAITING) {
            wakeNow(); // what we await is done already: abandoned
        } else if (state == SLEEPING) {
            sleepTimer.cancel();
            wakeNow();
        }
        // NEW, SCHEDULED: step() is queued and delivers it; RUNNING: the next suspension does.
        return true;
    }

    /**
     * Hands the cancellation on to the future the task awaits, as asyncio does: it is cancelled,
     * and the task wakes when it is done. False if it cannot be (done already).
     */
    private boolean handOn() {
        if (!waitingOn.cancel(cancelReason)) {
            return false;
        }
        handedOn = true;
        cancelEvents++;
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

    /** {@link #requestCancel()}'s token when the task was done and nothing was requested. */
    static final int NOT_REQUESTED = Integer.MIN_VALUE;

    /**
     * A cancel by structured code (a timeout, a task group), which withdraws it later with
     * {@link #withdrawCancel(int)} once it has handled it. Loop thread.
     *
     * @return a token for the withdrawal: whether the request is pending, and as of when
     */
    int requestCancel() {
        if (!cancel()) {
            return NOT_REQUESTED;
        }
        return mustCancel ? cancelEvents : -1;
    }

    /**
     * Withdraws a request made with {@link #requestCancel()}. If it is still pending (neither
     * delivered nor handed on) it must not be delivered later, unless another pending request
     * remains.
     *
     * @return the requests left
     */
    int withdrawCancel(int token) {
        if (token == NOT_REQUESTED) {
            return cancelRequests;
        }
        if (token >= 0 && token == cancelEvents && undelivered > 0 && --undelivered == 0) {
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
        if (roster != null && roster == scheduler.failedRoster() && loop.inLoop()) {
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
    protected String label() {
        return name();
    }

    @Override
    public void describeTo(LogContext context) {
        context.task(name());
    }

    /** The stepper: a named class, so a debug log or an error about a step names the task. */
    private final class Step implements Runnable, LogContext.Subject {
        @Override
        public void run() {
            step();
        }

        @Override
        public void describeTo(LogContext context) {
            context.task(name());
        }

        @Override
        public String toString() {
            return name() + " (step)";
        }
    }

    /** The roster this task is in, or null. */
    TaskRoster roster() {
        return roster;
    }
}
