package dev.loop;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A single-threaded event loop in the manner of Python's asyncio: callbacks, timers and I/O
 * readiness all run on the one thread that called {@link #runForever()} (or
 * {@link #runUntilComplete}), one {@linkplain #callSoon callback} at a time, so code running on the
 * loop needs no locks.
 *
 * <p>Thread safety: {@link #callSoon}, {@link #callLater}, {@link #callAt}, {@link #execute},
 * {@link #spawn}, {@link #offload}, {@link #stop()}, {@link #time()}, {@link #inLoop()} and
 * cancelling a {@link TimerHandle} are safe from any thread; off the loop thread they go through a
 * lock-free inbox and wake the loop only if it sleeps. Everything else is for the loop's owner.
 *
 * <p>After {@link #close()}, every submission ({@code callSoon}, {@code execute}, {@code callLater},
 * {@code callAt}, {@code spawn}, {@code offload}) throws {@link RejectedExecutionException}, from
 * any thread, as {@link Executor#execute} specifies; running a closed loop ({@code runForever},
 * {@code runUntilComplete}, {@code run}) throws {@link IllegalStateException}. While the loop
 * closes, the closing thread may still submit: its callbacks run, its timers are cancelled at
 * once (timers cannot outlive the loop), its tasks are cancelled before they start.
 *
 * <p>Obtain one from {@link Loops#open()} (or a {@link LoopGroup}). Sealed: the loop's futures,
 * tasks and the layers on it (sockets, timers) work on the loop they were made by, so a loop is
 * always one of this library's; to add behaviour around one, wrap it in a class of your own that
 * holds it rather than implementing this interface.
 */
public sealed interface Loop extends Executor, AutoCloseable permits DefaultLoop {

    /**
     * Schedules {@code callback} to run in a later iteration, after every callback already
     * scheduled (FIFO): a {@code callSoon} that happens-before another runs first, whichever
     * threads made them. Callbacks scheduled while an iteration runs its callbacks run in the next
     * iteration. Allocates nothing on the loop thread.
     *
     * @throws RejectedExecutionException if the loop is closed
     */
    void callSoon(Runnable callback);

    /**
     * Same as {@link #callSoon}, so a loop can serve as an {@link Executor}.
     *
     * @throws RejectedExecutionException if the loop is closed
     */
    @Override
    void execute(Runnable callback);

    /**
     * Schedules {@code callback} to run once {@code delay} has passed on the loop's clock. A zero or
     * negative delay is a deadline already passed: it runs in the next iteration, ordered by that
     * deadline among the timers due (equal deadlines in the order they were scheduled, across
     * threads as {@link #callSoon}).
     *
     * @throws RejectedExecutionException if the loop is closed
     */
    TimerHandle callLater(Duration delay, Runnable callback);

    /**
     * Schedules {@code callback} at the absolute loop time {@code deadlineNanos} (see {@link #time()}).
     *
     * @throws RejectedExecutionException if the loop is closed
     */
    TimerHandle callAt(long deadlineNanos, Runnable callback);

    /** The loop's monotonic clock, in nanoseconds; only differences are meaningful. */
    long time();

    /** A new pending future bound to this loop: its callbacks run on this loop. */
    <T> Promise<T> newPromise();

    /**
     * Starts {@code body} as a {@link Task} on this loop: it begins in a later iteration and runs
     * on the loop thread, suspending at {@link Async#await} and the other {@link Async} calls.
     * A task spawned from inside a task inherits its {@link TaskLocal} values. Safe from any
     * thread.
     *
     * @throws RejectedExecutionException if the loop is closed
     * @throws IllegalStateException      if continuations were required with
     *                                    {@code -Dloop.tasks.mechanism=continuation} and are
     *                                    unavailable
     */
    <T> Task<T> spawn(TaskBody<T> body);

    /**
     * Python's {@code asyncio.run}: runs {@code body} as the main task until it is done, then
     * cancels every task still running and waits for them to finish, then closes the loop.
     * Returns the main task's value or throws its exception (the same object).
     *
     * @throws IllegalStateException if the loop is running or closed
     */
    <T> T run(TaskBody<T> body);

    /**
     * Runs blocking code (file I/O, JDBC, a lock) on a new virtual thread and returns a future of
     * this loop completed with its outcome, asyncio's {@code run_in_executor}. Cancelling the
     * future interrupts the thread. Safe from any thread; in a task, {@link Async#runBlocking}
     * awaits it in one call.
     *
     * @throws RejectedExecutionException if the loop is closed
     */
    <T> LoopFuture<T> offload(TaskBody<T> blocking);

    /**
     * The loop running on this thread: the caller is one of its callbacks or tasks.
     *
     * @throws IllegalStateException anywhere else
     */
    static Loop current() {
        Loop l = DefaultLoop.currentLoop();
        if (l == null) {
            throw new IllegalStateException("Loop.current() called on thread " + Thread.currentThread().getName()
                    + ", which is not running a loop: call it from a callback or task, or pass the loop along");
        }
        return l;
    }

    /**
     * Runs iterations until {@link #stop()} is called, or until the thread running the loop is
     * interrupted: an interrupt acts like {@code stop()} (the loop returns after the iteration in
     * progress, and a blocking wait it interrupts ends at once on backends whose wait can be
     * interrupted), and the thread's interrupt status is left set for the caller to see. Clear it
     * ({@link Thread#interrupted()}) before running the loop again, or each run stops after one
     * iteration.
     */
    void runForever();

    /**
     * Runs iterations until {@code future} is done and returns its result, throwing its exception
     * (the same object) if it failed.
     *
     * @throws IllegalStateException if the loop was stopped, or its thread interrupted (see
     *                               {@link #runForever()}), before the future completed
     */
    <T> T runUntilComplete(LoopFuture<T> future);

    /**
     * Makes the running loop return after the iteration in progress; if the loop is not running,
     * its next run stops after one iteration. {@link #runForever()} may be called again afterwards.
     */
    void stop();

    /**
     * Closes the loop: timers still pending are cancelled, callbacks already scheduled run, the
     * backend's resources are released. Nothing submitted before this returns is lost: it runs, or
     * it is cancelled. Idempotent.
     *
     * @throws IllegalStateException if the loop is running
     */
    @Override
    void close();

    boolean isRunning();

    boolean isClosed();

    /** True on the thread that runs this loop right now. */
    boolean inLoop();

    /**
     * The loop's name, unique in this JVM: {@code loop-<n>-<backend>}. Its JFR events, its MBean
     * ({@code dev.loop:type=Loop,name="<name>"}) and its log records carry it.
     */
    String name();

    /** The I/O backend's name, as {@link Loops#providers()} lists it. */
    String backendName();

    /** The timer strategy's name, as {@link Loops#providers()} lists it. */
    String timersName();

    boolean isDebug();

    /**
     * Hands an error that nobody else can receive to the loop's exception handler, as the loop
     * itself does for exceptions escaping callbacks (asyncio's {@code call_exception_handler}).
     * Never throws: a handler that fails is logged together with what it was handling. Loop thread.
     *
     * @param message what happened
     * @param error   the exception, or {@code null}
     * @param source  the callback, future, task or connection concerned, or {@code null}
     */
    void callExceptionHandler(String message, Throwable error, Object source);

    /**
     * Counts of what the loop holds right now (iterations, ready callbacks, timers, live tasks) and
     * how its tasks suspend; for monitoring and tests.
     */
    LoopDiagnostics diagnostics();

    /**
     * The loop's always-on metrics: busy ratio, iteration time and scheduling lag, queue depths,
     * timers, tasks and connections (docs/METRICS.md). Any thread; cheap enough to call every second.
     */
    LoopMetrics metrics();

    /** Where exceptions that escape callbacks go; never null. */
    LoopExceptionHandler exceptionHandler();

    /** Replaces the exception handler; {@code null} restores the default (log and continue). */
    void setExceptionHandler(LoopExceptionHandler handler);
}
