package dev.loop;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

/**
 * A deadline on a piece of a task's work ({@link Async#timeout}), which the work itself may move
 * while it runs. When the deadline passes, the task is cancelled; the timeout turns that one
 * cancellation into a {@link TimeoutException} and withdraws it from the task's count, so an outer
 * timeout or a real cancel of the task is neither swallowed nor mistaken for this one.
 *
 * <p>A deadline already passed (a zero or negative delay) expires at once: the work gets the
 * cancellation at its first suspension, as with asyncio's {@code timeout(0)}; work that never
 * suspends returns its value. Work that catches the cancellation and returns a value anyway
 * (itself, or a task it awaits, which the cancellation is handed on to) returns that value: the
 * deadline passed ({@link #expired()} says so) but nothing was cancelled.
 *
 * <p>Not thread-safe: use it from its task.
 */
public final class Timeout {
    /** The code run under a timeout, given the timeout so it can {@link #reschedule} it. */
    @FunctionalInterface
    public interface Body<T> {
        T call(Timeout timeout) throws Exception;
    }

    private final LoopTask<?> task;
    private final DefaultLoop loop;
    private TimerHandle timer;
    private long deadline;
    private boolean expired;
    private boolean finished;
    /** The task's token for our cancel request, to withdraw exactly it. */
    private int cancelToken;

    private Timeout(LoopTask<?> task) {
        this.task = task;
        this.loop = task.eventLoop();
    }

    // Our request is withdrawn whatever the body did with it: delivered and caught, handed on to
    // what the body awaited and swallowed there, or (a deadline already passed, a body that never
    // suspended) still pending, when the token says so and it is dropped.
    static <T> T run(LoopTask<?> task, Duration delay, Body<T> body) throws TimeoutException {
        Objects.requireNonNull(delay, "delay");
        Timeout t = new Timeout(task);
        int cancellingAtEntry = task.cancelling();
        t.reschedule(delay);
        try {
            T value = body.call(t);
            if (t.expired) {
                task.withdrawCancel(t.cancelToken); // the body returned anyway: no timeout
            }
            return value;
        } catch (CancellationException e) {
            if (t.expired && task.withdrawCancel(t.cancelToken) <= cancellingAtEntry) {
                TimeoutException te = new TimeoutException("timed out after " + delay);
                te.initCause(e);
                throw te;
            }
            throw e;
        } catch (Exception e) {
            if (t.expired) {
                // The body caught our cancellation and failed another way: withdraw our request.
                task.withdrawCancel(t.cancelToken);
            }
            throw Sneaky.<RuntimeException>rethrow(e);
        } finally {
            t.finished = true;
            if (t.timer != null) {
                t.timer.cancel();
            }
        }
    }

    /**
     * Moves the deadline to {@code delay} from now. A zero or negative delay expires the timeout at
     * once: the body gets the cancellation at its next suspension.
     *
     * @throws IllegalStateException if the timeout already fired or its body has ended
     */
    public void reschedule(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (expired || finished) {
            throw new IllegalStateException("reschedule() on a timeout that has " + (expired ? "expired" : "ended"));
        }
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        if (delay.isNegative() || delay.isZero()) {
            deadline = loop.time();
            expire();
        } else {
            timer = loop.callLater(delay, this::expire);
            deadline = timer.deadline();
        }
    }

    /** The loop time ({@link Loop#time()}) at which the body is cancelled. */
    public long deadline() {
        return deadline;
    }

    /** True once the deadline passed and the task was cancelled for it. */
    public boolean expired() {
        return expired;
    }

    private void expire() {
        if (!finished) {
            expired = true;
            timer = null;
            cancelToken = task.requestCancel();
        }
    }
}
