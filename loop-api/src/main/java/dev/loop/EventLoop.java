package dev.loop;

import dev.loop.spi.IoHandler;
import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.jctools.queues.MessagePassingQueue;

/**
 * The engine behind every {@link Loop}: the ready queue, the inbox for other threads, the timers,
 * the clock and {@link #runOnce()}. Backends plug in below it ({@link IoHandler}), timer strategies
 * beside it ({@link TimerQueue}).
 *
 * <p>Not thread-safe except where {@link Loop} says so: all state but the inbox, the wake-up word
 * and the close state belongs to the thread running the loop.
 */
final class EventLoop implements Loop {
    private static final System.Logger LOG = System.getLogger("dev.loop");
    private static final ThreadLocal<EventLoop> CURRENT = new ThreadLocal<>();

    /** Passes over leftover callbacks that {@link #close()} makes before it reports the rest. */
    static final int MAX_CLOSE_PASSES = 1_000;

    // The wake-up word: what the loop thread is doing, so other threads wake it only when it sleeps
    // (one eventfd write or selector wakeup per sleep, however many submissions arrive).
    private static final int AWAKE = 0;
    private static final int POLLING = 1; // blocked in IoHandler.poll: wake with io.wakeup()
    private static final int PARKED = 2;  // parked for less than the backend's resolution: unpark
    private static final VarHandle WAKE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            WAKE = l.findVarHandle(EventLoop.class, "wakeState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IoHandler io;
    private final TimerQueue timers;
    private final LoopClock clock;
    private final String backendName;
    private final String timersName;
    private final boolean debug;
    private final long slowCallbackNanos;
    private final int maxTimersPerIteration;
    private final int maxInboxPerIteration;
    private final long ioResolutionNanos;

    private final ArrayDeque<Runnable> ready = new ArrayDeque<>(1024);
    private final Inbox inbox;
    private final Consumer<TimerNode> fireTimer = node -> ready.addLast((LoopTimer) node);
    private final MessagePassingQueue.Consumer<Object> fromInbox = this::acceptFromInbox;
    private final List<Runnable> closeHooks = new ArrayList<>();
    private final AutoCloseable clockSubscription;
    private final TaskScheduler tasks;

    private volatile Thread owner;
    private volatile boolean stopping;
    private volatile boolean closed;
    private boolean closing;
    private long timerSequence;
    private long iterations;
    private NetRegistry net; // created on first socket use
    private volatile int wakeState;
    private volatile LoopExceptionHandler exceptionHandler;

    EventLoop(IoHandler io, String backendName, TimerQueue timers, String timersName, LoopOptions options) {
        this.io = io;
        this.backendName = backendName;
        this.timers = timers;
        this.timersName = timersName;
        this.clock = options.clock();
        this.debug = options.debug();
        this.slowCallbackNanos = options.slowCallbackThreshold().toNanos();
        this.maxTimersPerIteration = options.maxTimersPerIteration();
        this.maxInboxPerIteration = options.maxInboxPerIteration();
        this.ioResolutionNanos = Math.max(1, io.resolutionNanos());
        this.inbox = new Inbox("backend " + backendName);
        this.clockSubscription = clock.onAdvance(this::wakeIfSleeping);
        this.tasks = new TaskScheduler(this, System.getProperty(TaskMechanism.PROPERTY));
        addCloseHook(tasks::onClose);
    }

    /** The loop running on this thread, or null. */
    static EventLoop current() {
        return CURRENT.get();
    }

    /** Marks a fallback task's virtual thread as running this loop (null: unmarks it). */
    static void bindCurrent(EventLoop loop) {
        if (loop == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(loop);
        }
    }

    /**
     * Hands the loop thread's identity to {@code t} (a fallback task's virtual thread) while the
     * real loop thread waits for it, so {@link #inLoop()} and the fast paths hold inside the task.
     */
    void lendTo(Thread t) {
        owner = t;
    }

    TaskScheduler tasks() {
        return tasks;
    }

    @Override
    public <T> Task<T> spawn(TaskBody<T> body) {
        return tasks.spawn(body);
    }

    @Override
    public <T> T run(TaskBody<T> body) {
        return tasks.run(body);
    }

    // ---------------------------------------------------------------- scheduling (any thread)

    @Override
    public void callSoon(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        Runnable r = debug ? DebugCallback.wrap(callback) : callback;
        if (Thread.currentThread() == owner) {
            ready.addLast(r);
        } else {
            submit(r);
        }
    }

    @Override
    public void execute(Runnable callback) {
        callSoon(callback);
    }

    @Override
    public TimerHandle callLater(Duration delay, Runnable callback) {
        Objects.requireNonNull(delay, "delay");
        long nanos;
        try {
            nanos = delay.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = delay.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long now = time();
        long deadline = now + nanos;
        if (((now ^ deadline) & (nanos ^ deadline)) < 0) { // overflow: saturate
            deadline = nanos > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return callAt(deadline, callback);
    }

    @Override
    public TimerHandle callAt(long deadlineNanos, Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        LoopTimer t = new LoopTimer(this, deadlineNanos, debug ? DebugCallback.wrap(callback) : callback);
        if (Thread.currentThread() == owner) {
            if (closing) {
                t.cancel(); // timers cannot outlive the loop: scheduled while closing means cancelled
            } else {
                t.sequence(timerSequence++);
                timers.add(t);
            }
        } else {
            submit(t);
        }
        return t;
    }

    /** Cancel of a timer: remove it now on the loop thread, else let the loop remove it. */
    void timerCancelled(LoopTimer t) {
        if (Thread.currentThread() == owner) {
            timers.remove(t);
        } else if (!inbox.isShut()) {
            try {
                submit(t);
            } catch (RejectedExecutionException closedMeanwhile) {
                // the loop closed and dropped its timers: nothing left to remove
            }
        }
    }

    private void submit(Object item) {
        if (inbox.offer(item)) {
            wakeIfSleeping();
        }
    }

    private void wakeIfSleeping() {
        int s = wakeState;
        if (s != AWAKE && WAKE.compareAndSet(this, s, AWAKE)) {
            if (s == POLLING) {
                io.wakeup();
            } else {
                LockSupport.unpark(owner);
            }
        }
    }

    // ---------------------------------------------------------------- running

    @Override
    public void runForever() {
        enter();
        try {
            Thread me = Thread.currentThread();
            do {
                runOnce();
            } while (!stopping && !me.isInterrupted()); // an interrupt stops the loop like stop()
        } finally {
            exit();
        }
    }

    @Override
    public <T> T runUntilComplete(LoopFuture<T> future) {
        Objects.requireNonNull(future, "future");
        if (future.loop() != this) {
            throw new IllegalArgumentException("runUntilComplete: the future belongs to another loop: " + future);
        }
        java.util.function.Consumer<LoopFuture<T>> stopper = f -> stop();
        future.onDone(stopper);
        try {
            runForever();
        } finally {
            future.removeCallback(stopper);
        }
        if (!future.isDone()) {
            throw new IllegalStateException("the loop stopped before the future completed: " + future
                    + (Thread.currentThread().isInterrupted() ? " (the thread running it was interrupted)" : ""));
        }
        return future.result();
    }

    /**
     * One iteration. This is the only place callbacks run; the phases are listed in the same words
     * in docs/design.md.
     */
    void runOnce() {
        iterations++;
        // 1. Move work submitted by other threads (MPSC inbox) into the ready queue.
        drainInbox();

        // 2. Compute the poll timeout: 0 if anything is ready or a stop is pending; else until the
        //    earliest timer; else forever.
        long timeout = 0;
        if (ready.isEmpty() && !stopping) {
            timeout = prepareToSleep();
        }

        // 3. Poll the I/O backend; readiness handlers enqueue their callbacks.
        poll(timeout);

        // 4. Move every timer whose deadline has passed into the ready queue (capped per
        //    iteration), then the work other threads submitted while we polled.
        if (timers.size() > 0) {
            timers.expire(clock.nanoTime(), maxTimersPerIteration, fireTimer);
        }
        drainInbox();

        // 5. Run exactly the callbacks that were ready when this step began; callbacks they
        //    schedule run in the next iteration.
        for (int n = ready.size(); n > 0; n--) {
            runCallback(ready.pollFirst());
        }
    }

    /** Publishes "about to sleep", then takes the last look that makes a lost wake-up impossible. */
    private long prepareToSleep() {
        WAKE.setVolatile(this, POLLING);
        long timeout = IoHandler.BLOCK_UNTIL_WOKEN;
        if (!inbox.isEmpty() || stopping || Thread.currentThread().isInterrupted()) {
            timeout = 0; // interrupted: this is the last iteration, and a backend may not see it
        } else {
            long next = timers.nextDeadline();
            if (next != TimerQueue.NO_DEADLINE) {
                long now = clock.nanoTime();
                if (next <= now) {
                    timeout = 0;
                } else if (!clock.isReal()) {
                    // A virtual clock: never wait for real. It either jumps to the deadline by
                    // itself, or the loop blocks until the clock is advanced (which wakes it).
                    timeout = clock.idle(next) ? 0 : IoHandler.BLOCK_UNTIL_WOKEN;
                } else {
                    timeout = next - now;
                }
            }
        }
        if (timeout == 0) {
            wakeState = AWAKE;
        }
        return timeout;
    }

    private void poll(long timeout) {
        try {
            if (timeout > 0 && timeout < ioResolutionNanos) {
                // Due sooner than the backend can time a wait (epoll and Selector count
                // milliseconds): take what I/O is ready without blocking, then park for exactly the
                // rest, so the loop neither spins nor oversleeps.
                io.poll(0);
                if (ready.isEmpty() && inbox.isEmpty() && WAKE.compareAndSet(this, POLLING, PARKED)) {
                    LockSupport.parkNanos(this, timeout);
                }
            } else {
                io.poll(timeout);
            }
        } catch (Throwable t) {
            report("I/O backend " + backendName + " failed to poll", t, io);
        } finally {
            if (timeout != 0) {
                wakeState = AWAKE;
            }
        }
    }

    private void drainInbox() {
        inbox.drain(fromInbox, maxInboxPerIteration);
    }

    private void acceptFromInbox(Object item) {
        if (item instanceof LoopTimer t) {
            // A timer created or cancelled on another thread: schedule it, or drop it.
            if (t.isCancelled()) {
                timers.remove(t);
            } else if (closing) {
                t.cancel();
            } else {
                t.sequence(timerSequence++);
                timers.add(t);
            }
        } else {
            ready.addLast((Runnable) item);
        }
    }

    private void runCallback(Runnable r) {
        long start = debug ? System.nanoTime() : 0;
        try {
            r.run();
        } catch (Throwable t) {
            report("exception in callback " + r, t, r);
        }
        if (debug) {
            long took = System.nanoTime() - start;
            if (took >= slowCallbackNanos) {
                LOG.log(System.Logger.Level.WARNING, "loop (" + backendName + "): executing " + r + " took "
                        + Duration.ofNanos(took).toMillis() + " ms" + DebugCallback.siteOf(r));
            }
        }
    }

    private void enter() {
        if (closed || closing) {
            throw new IllegalStateException("loop is closed (backend " + backendName + "): cannot run it");
        }
        if (owner != null) {
            throw new IllegalStateException("loop is already running on thread " + owner.getName());
        }
        if (CURRENT.get() != null) {
            throw new IllegalStateException("another loop is already running on thread "
                    + Thread.currentThread().getName());
        }
        owner = Thread.currentThread();
        CURRENT.set(this);
    }

    private void exit() {
        stopping = false;
        owner = null;
        CURRENT.remove();
    }

    @Override
    public void stop() {
        stopping = true;
        if (Thread.currentThread() != owner) {
            wakeIfSleeping();
        }
    }

    // ---------------------------------------------------------------- closing

    /** Runs {@code hook} on the closing thread when the loop closes, before timers are cancelled. */
    void addCloseHook(Runnable hook) {
        closeHooks.add(hook);
    }

    @Override
    public void close() {
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
        inbox.shut();
        // Tasks resumed by the close hooks look the loop up through CURRENT, as when it runs.
        EventLoop previous = CURRENT.get();
        CURRENT.set(this);
        try {
            for (Runnable hook : closeHooks) {
                runCallback(hook);
            }
            drainInbox();
            timers.clear(node -> ((LoopTimer) node).cancel());
            int passes = 0;
            while ((!ready.isEmpty() || !inbox.isEmpty()) && passes++ < MAX_CLOSE_PASSES) {
                runOnce();
            }
        } finally {
            inbox.seal(fromInbox);
            // What the seal took runs now; the inbox is no longer drained by this thread.
            int passes = 0;
            while (!ready.isEmpty() && passes++ < MAX_CLOSE_PASSES) {
                runOnce();
            }
            if (!ready.isEmpty()) {
                report("loop closed with " + ready.size() + " callbacks still being rescheduled after "
                        + MAX_CLOSE_PASSES + " passes; they were dropped", null, null);
            }
            try {
                io.close();
            } catch (Throwable t) {
                report("I/O backend " + backendName + " failed to close", t, io);
            }
            try {
                clockSubscription.close();
            } catch (Exception ignored) {
                // unsubscribing from a clock cannot fail in a way that matters here
            }
            bindCurrent(previous);
            synchronized (this) {
                closed = true;
                owner = null;
            }
        }
    }

    // ---------------------------------------------------------------- errors

    void report(String message, Throwable error, Object source) {
        LoopExceptionHandler h = exceptionHandler;
        try {
            if (h != null) {
                h.handle(this, message, error, source);
            } else {
                defaultHandler(message, error);
            }
        } catch (Throwable handlerFailed) {
            defaultHandler("the loop's exception handler failed while handling: " + message, handlerFailed);
        }
    }

    private void defaultHandler(String message, Throwable error) {
        LOG.log(System.Logger.Level.ERROR, "loop (" + backendName + "): " + message, error);
    }

    @Override
    public LoopExceptionHandler exceptionHandler() {
        LoopExceptionHandler h = exceptionHandler;
        return h != null ? h : (loop, message, error, source) -> defaultHandler(message, error);
    }

    @Override
    public void setExceptionHandler(LoopExceptionHandler handler) {
        this.exceptionHandler = handler;
    }

    // ---------------------------------------------------------------- state

    @Override
    public long time() {
        return clock.nanoTime();
    }

    @Override
    public <T> Promise<T> newPromise() {
        return new DefaultPromise<>(this);
    }

    @Override
    public boolean isRunning() {
        return owner != null && !closing;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == owner;
    }

    @Override
    public String backendName() {
        return backendName;
    }

    @Override
    public String timersName() {
        return timersName;
    }

    @Override
    public boolean isDebug() {
        return debug;
    }

    /** Nothing ready and nothing submitted: used by close to know a round of task cancels settled. */
    boolean idle() {
        return ready.isEmpty() && inbox.isEmpty();
    }

    /**
     * The sockets this loop owns and the backend that opens them; the first call registers the
     * close hook that closes them with the loop.
     *
     * @throws UnsupportedOperationException if the backend has no sockets
     */
    NetRegistry net() {
        NetRegistry n = net;
        if (n == null) {
            dev.loop.spi.NetIo nio = io.net();
            if (nio == null) {
                throw new UnsupportedOperationException("backend " + backendName + " has no sockets");
            }
            n = net = new NetRegistry(this, nio);
            addCloseHook(n::closeAll);
        }
        return n;
    }

    /** Iterations run so far (for tests and diagnostics). */
    long iterations() {
        return iterations;
    }

    /** Timers queued right now (for tests and diagnostics). */
    int pendingTimers() {
        return timers.size();
    }

    @Override
    public String toString() {
        return "Loop[" + backendName + "/" + timersName + (closed ? ", closed" : owner != null ? ", running" : "") + "]";
    }
}
