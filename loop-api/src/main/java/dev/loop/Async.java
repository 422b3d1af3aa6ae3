package dev.loop;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * What code running in a {@link Task} calls to suspend: await a future, sleep, yield, bound a
 * piece of work with a timeout. These are plain static methods, so any method called from a task
 * may suspend too; the task is found from the current thread.
 *
 * <p>A suspension point is also where the task receives a {@link CancellationException} if it was
 * cancelled. Never suspend while holding a {@code java.util.concurrent} lock or inside
 * {@code synchronized}: every task shares the loop thread, so such locks do not exclude other
 * tasks (use {@link AsyncLock}).
 */
public final class Async {
    private Async() {
    }

    /**
     * Waits for {@code future} and returns its value, or throws its exception (the same object,
     * checked or not, as {@link LoopFuture#result()} does) or a {@link CancellationException}.
     * A checked exception comes out undeclared: to catch one by its type, use
     * {@link #await(LoopFuture, Class)}.
     *
     * <ul>
     *   <li>In a task: suspends the task (not the thread). A future already done returns at once
     *       without giving up the loop. Cancelling the task cancels {@code future} (see
     *       {@link #shield}), and the task then sees what {@code future} ends with (see
     *       {@link Task#cancel()}). A task already cancelled (by itself, say) gets the
     *       {@link CancellationException} here. A future of another loop is marshalled: the task
     *       resumes on its own loop, and cancelling the task cancels that future too.
     *   <li>On a thread that runs no loop: blocks that thread until the future is done.
     *   <li>On a loop thread outside a task (a callback): an {@link IllegalStateException}, since
     *       blocking the loop would keep the future from ever completing.
     * </ul>
     */
    public static <T> T await(LoopFuture<T> future) {
        Objects.requireNonNull(future, "future");
        LoopTask<?> t = LoopTask.current();
        if (t != null) {
            return t.await(future);
        }
        refuseOnLoopThread("await(" + future + ")");
        if (!future.isDone()) {
            // Woken where the future completes, not by a callback on its loop: if it completes
            // just before this registers, the loop may have stopped (runUntilComplete returns once
            // it is done) and would never run a callback added now.
            CountDownLatch done = new CountDownLatch(1);
            DefaultPromise.of(future).relayTo(f -> done.countDown());
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                CancellationException c = new CancellationException("interrupted while awaiting " + future);
                c.initCause(e);
                throw c;
            }
        }
        return future.result();
    }

    /**
     * {@link #await(LoopFuture)} that declares what it rethrows, so a task can catch a checked
     * exception by its type (javac accepts a {@code catch (SocketTimeoutException e)} only around a
     * call that declares it):
     *
     * <pre>{@code
     * try {
     *     line = Async.await(conn.readLine(1024), IOException.class);
     * } catch (SocketTimeoutException e) {
     *     ...
     * }
     * }</pre>
     *
     * <p>The future's exception comes out as the same object when it is an {@code X}, a
     * {@link RuntimeException} or an {@link Error} (a cancellation included); any other checked
     * exception, which the caller did not declare, comes wrapped in a {@link CompletionException}
     * as {@code CompletableFuture.join()} does. See docs/adr/0007-checked-exceptions-in-tasks.md.
     *
     * @param rethrown the checked exceptions to rethrow as they are ({@code IOException.class} for
     *                 sockets, {@code Exception.class} for all)
     * @throws X the future's exception when it is an {@code X}
     */
    public static <T, X extends Exception> T await(LoopFuture<T> future, Class<X> rethrown) throws X {
        Objects.requireNonNull(rethrown, "rethrown");
        try {
            return await(future);
        } catch (Throwable t) {
            throw declared(t, rethrown);
        }
    }

    /** {@link #await(LoopFuture, Class)} for any {@link CompletionStage}. */
    public static <T, X extends Exception> T await(CompletionStage<T> stage, Class<X> rethrown) throws X {
        Objects.requireNonNull(rethrown, "rethrown");
        try {
            return await(stage);
        } catch (Throwable t) {
            throw declared(t, rethrown);
        }
    }

    /** {@code t} as the caller declared it: an X, unchecked, or else wrapped in a CompletionException. */
    private static <X extends Exception> X declared(Throwable t, Class<X> rethrown) {
        if (rethrown.isInstance(t)) {
            return rethrown.cast(t);
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new CompletionException(t);
    }

    /**
     * {@link #await(LoopFuture)} for any {@link CompletionStage}, completed on whatever thread.
     * Cancelling the task cancels the stage if it is a {@link java.util.concurrent.Future} (see
     * {@link LoopFuture#from}).
     */
    public static <T> T await(CompletionStage<T> stage) {
        Objects.requireNonNull(stage, "stage");
        LoopTask<?> t = LoopTask.current();
        if (t != null) {
            return t.await(LoopFuture.from(stage, t.eventLoop()));
        }
        refuseOnLoopThread("await(" + stage + ")");
        try {
            return stage.toCompletableFuture().get();
        } catch (ExecutionException | CompletionException e) {
            throw Sneaky.<RuntimeException>rethrow(e.getCause() != null ? e.getCause() : e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            CancellationException c = new CancellationException("interrupted while awaiting " + stage);
            c.initCause(e);
            throw c;
        }
    }

    /** Suspends the current task for {@code delay} of loop time; zero or negative yields once. */
    public static void sleep(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        task("sleep").sleep(delay);
    }

    /** Lets every callback and task that is ready run once before the current task continues. */
    public static void yieldNow() {
        task("yieldNow").yieldNow();
    }

    /**
     * The task running this code.
     *
     * @throws IllegalStateException outside a task
     */
    public static Task<?> currentTask() {
        return task("currentTask");
    }

    /** True when called from inside a task. */
    public static boolean inTask() {
        return LoopTask.current() != null;
    }

    /**
     * Runs {@code body} in the current task and cancels it if it is still running after
     * {@code delay}; that cancellation comes out as a {@link TimeoutException} (whose cause is the
     * {@link CancellationException}). A cancellation of the task by anyone else passes through
     * unchanged, even if the deadline also passed (asyncio's {@code timeout}). A zero or negative
     * delay expires at the body's first suspension; a body that catches the cancellation (or
     * awaits a task that does) and returns a value returns it: see {@link Timeout}.
     */
    public static <T> T timeout(Duration delay, TaskBody<T> body) throws TimeoutException {
        Objects.requireNonNull(body, "body");
        return Timeout.run(task("timeout"), delay, t -> body.call());
    }

    /** {@link #timeout(Duration, TaskBody)} whose body gets the {@link Timeout}, to reschedule it. */
    public static <T> T timeout(Duration delay, Timeout.Body<T> body) throws TimeoutException {
        Objects.requireNonNull(body, "body");
        return Timeout.run(task("timeout"), delay, body);
    }

    /**
     * {@link #timeout(Duration, TaskBody)} that declares what the body may throw, as
     * {@link #await(LoopFuture, Class)} does, so a task can catch a checked exception of the body
     * by its type:
     *
     * <pre>{@code
     * try {
     *     reply = Async.timeout(Duration.ofSeconds(5), IOException.class, () -> exchange(conn));
     * } catch (TimeoutException e) {
     *     ...
     * } catch (IOException e) {
     *     ...
     * }
     * }</pre>
     *
     * <p>The body's exception comes out as the same object when it is an {@code X}, a
     * {@link RuntimeException} or an {@link Error} (a cancellation of the task by someone else
     * included); any other checked exception, which the caller did not declare, comes wrapped in
     * a {@link CompletionException}. The deadline passing is a {@link TimeoutException}, as ever.
     *
     * @param rethrown the checked exceptions of the body to rethrow as they are
     * @throws TimeoutException if the deadline passed and the body ended cancelled
     * @throws X                the body's exception when it is an {@code X}
     */
    public static <T, X extends Exception> T timeout(Duration delay, Class<X> rethrown, TaskBody<T> body)
            throws TimeoutException, X {
        Objects.requireNonNull(body, "body");
        return timeout(delay, rethrown, t -> body.call());
    }

    /** {@link #timeout(Duration, Class, TaskBody)} whose body gets the {@link Timeout}. */
    public static <T, X extends Exception> T timeout(Duration delay, Class<X> rethrown, Timeout.Body<T> body)
            throws TimeoutException, X {
        Objects.requireNonNull(rethrown, "rethrown");
        Objects.requireNonNull(body, "body");
        try {
            return Timeout.run(task("timeout"), delay, body);
        } catch (TimeoutException e) {
            throw e; // declared: the deadline's, or the body's own
        } catch (Throwable t) {
            throw declared(t, rethrown);
        }
    }

    /**
     * A future that completes like {@code inner} but whose cancellation leaves {@code inner}
     * running: awaiting it from a task that gets cancelled cancels only the shield (asyncio's
     * {@code shield}). If the shield was cancelled (every task awaiting it was) and {@code inner}
     * then fails, nobody is left to see the failure: it goes to the loop's exception handler, once,
     * and counts as retrieved (asyncio drops it silently).
     */
    public static <T> LoopFuture<T> shield(LoopFuture<T> inner) {
        Objects.requireNonNull(inner, "inner");
        if (inner.isDone()) {
            return inner;
        }
        Promise<T> outer = inner.loop().newPromise();
        inner.onDone(f -> {
            if (outer.isCancelled() && !f.isCancelled() && !f.isSuccess()) {
                f.loop().callExceptionHandler("exception of a shielded future was never retrieved (every awaiter "
                        + "of the shield was cancelled): " + f, f.exception(), f);
            } else {
                Futures.copy(f, outer);
            }
        });
        return outer;
    }

    /**
     * Runs blocking code on a virtual thread ({@link Loop#offload}) and awaits its outcome, so the
     * loop keeps running meanwhile. Cancelling the task interrupts the thread.
     */
    public static <T> T runBlocking(TaskBody<T> blocking) {
        return await(task("runBlocking").eventLoop().offload(blocking));
    }

    private static LoopTask<?> task(String what) {
        return LoopTask.require(what);
    }

    private static void refuseOnLoopThread(String what) {
        if (DefaultLoop.currentLoop() != null) {
            throw new IllegalStateException(what + " called on the loop thread outside a task: blocking here would "
                    + "deadlock, because the future can only complete when this loop runs. In a callback use "
                    + "future.onDone(...), or move the code into a task with loop.spawn(...)");
        }
    }
}
