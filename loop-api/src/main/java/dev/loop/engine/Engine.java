package dev.loop.engine;

import dev.loop.log.LogContext;
import dev.loop.spi.IoDriver;
import dev.loop.spi.LoopClock;
import dev.loop.spi.TimerQueue;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The run loop under every {@code dev.loop.Loop}: the ready queue, the inbox other threads submit
 * to, the timers, the clock and {@link #runOnce()}. It knows what plugs in below it (an
 * {@link IoDriver}, a {@link TimerQueue}, a {@link LoopClock}) and nothing above it: the loop that
 * {@code dev.loop} assembles on it adds futures, tasks and the exception handler, and the layers
 * built on that (networking) keep their per-loop state in {@linkplain #extension extensions} that
 * close with the engine.
 *
 * <p>Not thread-safe except where a method says so: all state but the inbox, the wake-up word and
 * the close state belongs to the thread running the loop.
 */
public abstract class Engine {
    /** Passes over leftover callbacks that {@link #close()} makes before it reports the rest. */
    public static final int MAX_CLOSE_PASSES = 1_000;
    /** {@link #owner}, for the plain read of {@link #inLoop()}. */
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(Engine.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IoDriver io;
    private final EngineTimers timers;
    private final LoopClock clock;
    private final String backendName;
    private final String timersName;
    private final boolean debug;

    private final ReadyQueue ready = new ReadyQueue();
    private final Inbox inbox;
    private final Extensions extensions = new Extensions();
    private final AutoCloseable clockSubscription;
    private final EngineReports reports;
    private final Sleep sleep;
    private final BooleanSupplier workArrived = this::workArrived;
    private final BooleanSupplier stillIdle = this::idle;
    private final CallbackRunner callbacks;
    private final Submissions submissions;
    private final LoopStats stats;

    /** Volatile for threads asking about another; a thread asking about itself reads it plainly. */
    private volatile Thread owner;
    private volatile boolean stopping;
    private volatile boolean closed;
    private boolean closing;

    protected Engine(IoDriver io, TimerQueue timers, LoopClock clock, EngineSettings settings) {
        this.io = Objects.requireNonNull(io, "io");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.stats = new LoopStats(clock, settings.backendName(), settings.slowCallbackNanos());
        this.timers = new EngineTimers(timers, settings.maxTimersPerIteration(), ready, stats);
        this.backendName = settings.backendName();
        this.timersName = settings.timersName();
        this.debug = settings.debug();
        this.inbox = new Inbox("backend " + backendName);
        this.reports = new EngineReports(this, stats.name());
        this.sleep = new Sleep(io, timers, clock);
        this.callbacks = new CallbackRunner(this, reports.log(), debug, settings.slowCallbackNanos(), stats);
        this.submissions = new Submissions(this, inbox, ready, this.timers, callbacks, stats,
                settings.maxInboxPerIteration());
        this.clockSubscription = clock.onAdvance(this::wakeIfSleeping);
        io.reportFailuresTo(reports.forDriver());
    }

    /**
     * The engine behind {@code loop}, for the layers built on the engine inside loop-api. Every
     * {@code dev.loop.Loop} is one: that interface is sealed and its one implementation extends
     * this class, so no user's class can reach here posing as a loop.
     *
     * @throws IllegalArgumentException for an object that is not a loop
     */
    public static Engine of(Object loop) {
        if (loop instanceof Engine e) {
            return e;
        }
        throw new IllegalArgumentException("not a loop from Loops.open(): " + loop);
    }

    /** The engine running on this thread (or lent to it, see {@link #bindCurrent}), or null. */
    public static Engine current() {
        return CurrentEngine.get();
    }

    /** Marks a fallback task's virtual thread as running {@code engine} (null: unmarks it). */
    public static void bindCurrent(Engine engine) {
        CurrentEngine.set(engine);
    }

    /**
     * Hands the loop thread's identity to {@code t} (a fallback task's virtual thread) while the
     * real loop thread waits for it, so {@link #inLoop()} and the fast paths hold inside the task.
     */
    public final void lendTo(Thread t) {
        owner = t;
    }

    // ---------------------------------------------------------------- scheduling (any thread)

    /**
     * Runs {@code callback} in a later iteration, after everything already scheduled: after every
     * {@code callSoon} that happens-before this one, whichever thread made it. Any thread.
     *
     * @throws RejectedExecutionException if the loop is closed
     */
    public final void callSoon(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        // The engine's own final flag, not the runner's: one load fewer on the path every
        // completed future takes (docs/BENCHMARKS.md, "where a future's time goes").
        Runnable r = debug ? callbacks.tag(callback) : callback;
        if (inLoop()) {
            if (inbox.isEmpty()) {
                ready.addLast(r); // the common case: one array store, no allocation
            } else {
                submissions.behindInbox(r); // never overtake what other threads submitted first
            }
        } else {
            submissions.submit(r);
        }
    }

    /** A callback for a timer, wrapped in debug mode so a slow one says where it was scheduled. */
    protected final Runnable timerCallback(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        return callbacks.tag(callback);
    }

    /**
     * Queues {@code t} (made for this engine) by its deadline; equal deadlines keep the order in
     * which the timers were scheduled, across threads as {@link #callSoon} does. Any thread.
     *
     * @throws RejectedExecutionException if the loop is closed
     */
    public final void schedule(EngineTimer t) {
        if (inLoop()) {
            if (inbox.isEmpty()) {
                timers.add(t, closing);
            } else {
                submissions.timerBehindInbox(t);
            }
        } else {
            submissions.submitTimer(t);
        }
    }

    /** Cancel of a timer: remove it now on the loop thread, else let the loop remove it. */
    final void timerCancelled(EngineTimer t) {
        if (inLoop()) {
            timers.remove(t);
        } else if (!inbox.isShut()) {
            try {
                submissions.submitTimer(t);
            } catch (RejectedExecutionException closedMeanwhile) {
                // the loop closed and dropped its timers: nothing left to remove
            }
        }
    }

    /** Wakes the loop if it is blocked in its poll or parked; costs nothing when it is awake. Any thread. */
    public final void wakeIfSleeping() {
        sleep.wake();
    }

    // ---------------------------------------------------------------- running

    /** Runs iterations until {@link #stop()}, or until the thread running them is interrupted. */
    public final void runForever() {
        runForever(null, null);
    }

    /**
     * {@link #runForever()}, with {@code onEnter} run on the loop thread once the loop is entered
     * and {@code onExit} before it is left. Neither runs if the loop refuses to run, so a refused
     * call leaves nothing behind (no callback, no stop) for the loop's next run.
     */
    protected final void runForever(Runnable onEnter, Runnable onExit) {
        enter();
        try {
            if (onEnter != null) {
                onEnter.run();
            }
            Thread me = Thread.currentThread();
            do {
                runOnce();
            } while (!stopping && !me.isInterrupted()); // an interrupt stops the loop like stop()
        } finally {
            try {
                if (onExit != null) {
                    onExit.run();
                }
            } finally {
                exit();
            }
        }
    }

    /**
     * One iteration. This is the only place callbacks run; the phases are listed in the same words
     * in docs/design.md.
     */
    public final void runOnce() {
        stats.iterationBegins(); // counts it too: not here, where every submitter reads the owner
        // 1. Count the work other threads submitted (MPSC inbox) and the callbacks left ready by
        //    the previous iteration; step 5 runs them in that order, the submissions straight
        //    from the inbox.
        int left = ready.size();
        int early = submissions.countAtStart();

        // 2. Compute the poll timeout: 0 if anything is ready or a stop is pending; else until the
        //    earliest timer; else forever. A loop that other threads have just fed looks a moment
        //    longer before it sleeps, so a stream of submissions does not pay a wake-up per gap.
        long timeout = 0;
        if (ready.isEmpty() && early == 0 && !stopping) {
            stats.mayWait();
            timeout = sleep.timeout(workArrived, submissions.fed());
        }
        submissions.looked();

        // 3. Poll the I/O backend; readiness handlers enqueue their callbacks.
        poll(timeout);

        // 4. Move every timer whose deadline has passed into the ready queue (capped per
        //    iteration), then, if the poll may have waited, count the work other threads
        //    submitted while we polled.
        timers.expire(clock);
        int late = submissions.countWhilePolling(early, timeout != 0);

        // 5. Run exactly what was ready when this step began: the callbacks left from the previous
        //    iteration, the submissions counted in step 1, the I/O callbacks and timers, then the
        //    submissions counted in step 4. Callbacks they schedule run in the next iteration.
        int queued = ready.size();
        stats.callbacksBegin(queued + early + late);
        runReady(left);
        submissions.run(early);
        runReady(queued - left);
        submissions.run(late);
        stats.iterationEnds(ready.size(), timers.size());
        ready.iterationEnded();
    }

    /** The last look before sleeping (interrupted: the last iteration, which a backend may not see). */
    private boolean workArrived() {
        return !inbox.isEmpty() || stopping || Thread.currentThread().isInterrupted();
    }

    private void poll(long timeout) {
        long begun = stats.pollBegins(timeout); // a poll that may block is idle time, not busy
        try {
            sleep.poll(timeout, stillIdle);
        } catch (Throwable t) {
            report("I/O backend " + backendName + " failed to poll", t, io);
        }
        stats.pollEnded(begun);
    }

    private void runReady(int n) {
        callbacks.runAll(ready, n);
    }

    void runCallback(Runnable r) {
        callbacks.run(r);
    }

    /**
     * Debug mode: {@link System#nanoTime()} at the start of a slice of work inside a callback that
     * is timed and named on its own (a task's turn); 0 outside debug mode.
     */
    public final long sliceStart() {
        return callbacks.sliceStart();
    }

    /**
     * Debug mode: ends the slice {@link #sliceStart()} began; a slow one is logged as {@code what}
     * (its toString, built only then: a task's starts with its name), and its time is not counted
     * again for the callback it ran in. Loop thread.
     */
    public final void sliceEnd(long start, Object what) {
        callbacks.sliceEnd(start, what);
    }

    private void enter() {
        synchronized (this) { // close() checks the owner under the same lock
            if (closed || closing) {
                throw new IllegalStateException("loop is closed (backend " + backendName + "): cannot run it");
            }
            if (owner != null) {
                throw new IllegalStateException("loop is already running on thread " + owner.getName());
            }
            if (CurrentEngine.get() != null) {
                throw new IllegalStateException("another loop is already running on thread "
                        + Thread.currentThread().getName());
            }
            owner = Thread.currentThread();
        }
        CurrentEngine.set(this);
    }

    private void exit() {
        stats.loopLeft();
        stopping = false;
        owner = null;
        CurrentEngine.set(null);
    }

    /** Makes the running loop return after the iteration in progress. Any thread. */
    public final void stop() {
        stopping = true;
        if (!inLoop()) {
            wakeIfSleeping();
        }
    }

    // ---------------------------------------------------------------- extensions and closing

    /**
     * The per-loop state of a layer above the engine, made by {@code create} on first use. A layer
     * that must release something when the loop closes registers a {@linkplain #addCloseHook close
     * hook} from {@code create}. Loop thread, or any thread while the loop is not running.
     */
    public final <T> T extension(ExtensionKey<T> key, Function<Engine, T> create) {
        return extensions.get(this, key, create);
    }

    /** Runs {@code hook} on the closing thread when the loop closes, before timers are cancelled. */
    public final void addCloseHook(Runnable hook) {
        extensions.addCloseHook(hook);
    }

    /**
     * Closes the loop: close hooks run, pending timers are cancelled, scheduled callbacks run, the
     * backend is released. Nothing submitted before this returns is lost. Idempotent.
     *
     * @throws IllegalStateException if the loop is running
     */
    public final void close() {
        synchronized (this) {
            if (owner != null) {
                throw new IllegalStateException("close() called on a running loop (thread " + owner.getName()
                        + "): call stop() and close it after runForever() returns");
            }
            if (closed) {
                return;
            }
            owner = Thread.currentThread();
            closing = true;
            stopping = true; // every pass below polls without blocking
        }
        try {
            new Shutdown(this, inbox, submissions, ready, timers, extensions.closeHooks(), clockSubscription).run();
        } finally {
            synchronized (this) {
                closed = true;
                owner = null;
            }
        }
    }

    // ---------------------------------------------------------------- errors (EngineReports)

    /** Hands an error nobody else can receive to the loop's exception handler. Never throws. */
    public final void report(String message, Throwable error, Object source) {
        reports.report(message, error, source);
    }

    /** As {@link #report(String, Throwable, Object)}, about {@code about}: the connection {@code source} serves. */
    public final void report(String message, Throwable error, Object source, Object about) {
        reports.report(message, error, source, about);
    }

    /** The loop's exception handler: the user's, or {@link #logDefault}. May throw. */
    protected abstract void handle(String message, Throwable error, Object source) throws Throwable;

    /** What the default exception handler does: log on the {@code dev.loop} logger. Never throws. */
    protected final void logDefault(String message, Throwable error, Object source) {
        reports.logDefault(message, error, source);
    }

    /** The context for a record about {@code about} (may be null) written now. Any thread. */
    public final LogContext logContext(Object about) {
        return reports.logContext(about);
    }

    /** Adds what runs on the loop right now to a record's context; the loop adds its running task. */
    protected void describeCurrent(LogContext context) {
    }

    /** Reports that could be neither handled nor logged (each also printed a fixed line on standard error). */
    public final long failedReports() {
        return reports.failed();
    }

    // ---------------------------------------------------------------- state

    /** The loop's clock, in nanoseconds. Any thread. */
    public final long time() {
        return clock.nanoTime();
    }

    /** The backend below this engine. */
    public final IoDriver io() {
        return io;
    }

    /** True while a thread runs the loop and it is not closing. Any thread. */
    public final boolean isRunning() {
        return owner != null && !closing;
    }

    /** Any thread. */
    public final boolean isClosed() {
        return closed;
    }

    /** True once {@link #close()} began: what fails then is the close's doing, not news. Loop thread. */
    public final boolean isClosing() {
        return closing;
    }

    /** The thread running (or closing) the loop, or null. */
    final Thread owner() {
        return owner;
    }

    /**
     * True on the thread that runs this loop right now. Any thread. Read plainly, which is enough
     * for a thread asking about itself and lets the JIT keep the answer across a callback's run of
     * callSoon calls (docs/design.md, "Threads").
     */
    public final boolean inLoop() {
        return Thread.currentThread() == (Thread) OWNER.get(this);
    }

    public final String backendName() {
        return backendName;
    }

    public final String timersName() {
        return timersName;
    }

    public final boolean isDebug() {
        return debug;
    }

    /** Nothing ready and nothing submitted: used by close to know a round of task cancels settled. */
    public final boolean idle() {
        return ready.isEmpty() && inbox.isEmpty();
    }

    /** How often phase 1 waited for a stream of submissions (Submissions.pace). */
    final long submissionPaces() {
        return submissions.paces();
    }

    /** For tests: how far apart phase 1 counts the inbox in a stream of submissions. */
    final void spaceStreamLooks(long nanos) {
        submissions.spaceStreamLooks(nanos);
    }

    /** Iterations run so far. */
    public final long iterations() {
        return stats.iterations();
    }

    /** The loop's always-on metrics. */
    public final LoopStats stats() {
        return stats;
    }

    /** Timers queued right now. */
    public final int pendingTimers() {
        return timers.size();
    }

    /** Callbacks ready to run right now. */
    public final int readyCallbacks() {
        return ready.size();
    }

    @Override
    public String toString() {
        return "Loop[" + backendName + "/" + timersName + (closed ? ", closed" : owner != null ? ", running" : "") + "]";
    }
}
