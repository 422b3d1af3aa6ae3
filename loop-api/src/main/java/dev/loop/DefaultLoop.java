package dev.loop;

import dev.loop.engine.Engine;
import dev.loop.engine.EngineSettings;
import dev.loop.log.LogContext;
import dev.loop.spi.IoDriver;
import dev.loop.spi.TimerQueue;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The one {@link Loop}: the {@link Engine} (ready queue, inbox, timers, {@code runOnce}) plus what
 * this package adds on it, futures, tasks and the exception handler. Thread safety as {@link Loop}
 * says.
 */
final class DefaultLoop extends Engine implements Loop {
    private final TaskScheduler tasks;
    private volatile LoopExceptionHandler exceptionHandler;

    DefaultLoop(IoDriver io, String backendName, TimerQueue timers, String timersName, LoopOptions options) {
        super(io, timers, options.clock(), new EngineSettings(backendName, timersName, options.debug(),
                options.slowCallbackThreshold().toNanos(), options.maxTimersPerIteration(),
                options.maxInboxPerIteration()));
        String mechanism = options.taskMechanism() != null ? options.taskMechanism()
                : System.getProperty(TaskMechanism.PROPERTY);
        this.tasks = new TaskScheduler(this, mechanism);
        addCloseHook(tasks::onClose);
        LoopMonitoring.opened(this);
        addCloseHook(() -> LoopMonitoring.closed(this));
    }

    /** The loop running on this thread, or null. */
    static DefaultLoop currentLoop() {
        return Engine.current() instanceof DefaultLoop l ? l : null;
    }

    TaskScheduler tasks() {
        return tasks;
    }

    // ---------------------------------------------------------------- scheduling

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
        LoopTimer t = new LoopTimer(this, deadlineNanos, callback);
        schedule(t);
        return t;
    }

    @Override
    public <T> Promise<T> newPromise() {
        return new DefaultPromise<>(this);
    }

    @Override
    public <T> Task<T> spawn(TaskBody<T> body) {
        return tasks.spawn(body);
    }

    @Override
    public <T> T run(TaskBody<T> body) {
        return tasks.run(body);
    }

    @Override
    public <T> LoopFuture<T> offload(TaskBody<T> blocking) {
        Objects.requireNonNull(blocking, "blocking");
        if (isClosed()) {
            throw new RejectedExecutionException("loop is closed (backend " + backendName()
                    + "): cannot offload " + blocking);
        }
        DefaultPromise<T> p = new DefaultPromise<>(this);
        Thread worker = Thread.ofVirtual().name("loop-offload").start(() -> {
            try {
                p.tryComplete(blocking.call());
            } catch (Throwable t) {
                p.tryFail(t);
            }
        });
        // Run where the cancel happens, not on the loop: the interrupt need not wait for an
        // iteration, and a result arriving after the loop closed leaves no callback behind.
        p.relayTo(f -> {
            if (f.isCancelled()) {
                worker.interrupt();
            }
        });
        return p;
    }

    // ---------------------------------------------------------------- running

    @Override
    public <T> T runUntilComplete(LoopFuture<T> future) {
        Objects.requireNonNull(future, "future");
        if (future.loop() != this) {
            throw new IllegalArgumentException("runUntilComplete: the future belongs to another loop: " + future);
        }
        Consumer<LoopFuture<T>> stopper = f -> stop();
        // Registered once the loop is entered: a refused run leaves no stopper behind to end the
        // loop's next run early.
        runForever(() -> future.onDone(stopper), () -> future.removeCallback(stopper));
        if (!future.isDone()) {
            throw new IllegalStateException("the loop stopped before the future completed: " + future
                    + (Thread.currentThread().isInterrupted() ? " (the thread running it was interrupted)" : ""));
        }
        return future.result();
    }

    // ---------------------------------------------------------------- errors

    @Override
    protected void handle(String message, Throwable error, Object source) {
        LoopExceptionHandler h = exceptionHandler;
        if (h != null) {
            h.handle(this, message, error, source);
        } else {
            logDefault(message, error, source);
        }
    }

    @Override
    public void callExceptionHandler(String message, Throwable error, Object source) {
        report(message, error, source);
    }

    @Override
    public LoopExceptionHandler exceptionHandler() {
        LoopExceptionHandler h = exceptionHandler;
        return h != null ? h : (loop, message, error, source) -> logDefault(message, error, source);
    }

    @Override
    public void setExceptionHandler(LoopExceptionHandler handler) {
        this.exceptionHandler = handler;
    }

    // ---------------------------------------------------------------- state

    @Override
    public LoopDiagnostics diagnostics() {
        return new LoopDiagnostics(iterations(), readyCallbacks(), pendingTimers(), tasks.liveCount(),
                tasks.mechanismName(), failedReports());
    }

    @Override
    public LoopMetrics metrics() {
        return LoopMetrics.of(this, tasks.liveCount());
    }

    /** A record written while a task holds the loop thread names the task. */
    @Override
    protected void describeCurrent(LogContext context) {
        if (inLoop()) {
            LoopTask<?> t = tasks.current;
            if (t != null) {
                context.task(t.name());
            }
        }
    }

    @Override
    public String name() {
        return stats().name();
    }
}
