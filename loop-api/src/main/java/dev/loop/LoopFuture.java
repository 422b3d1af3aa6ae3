package dev.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An asyncio-style future bound to a {@link Loop}: pending, then done with a value, done with an
 * exception, or cancelled. Thread-safe.
 *
 * <p>Callbacks added with {@link #onDone} always run on the loop, scheduled with
 * {@link Loop#callSoon}: never inline in the thread that completes the future, and never inline in
 * {@code onDone} when the future is already done.
 *
 * <p>Sealed: every future is a {@link Promise} (from {@link Loop#newPromise()}) or a {@link Task}
 * (from {@link Loop#spawn}), both made by the loop. Awaiting, marshalling between loops and
 * cancelling rely on what only the loop's own futures do (waking a task where the future
 * completes, handing a cancellation on with its reason); a future of another library enters
 * through {@link #from(CompletionStage, Loop)}.
 */
public sealed interface LoopFuture<T> permits Promise, Task {

    /** The loop this future's callbacks run on. */
    Loop loop();

    boolean isDone();

    boolean isCancelled();

    /** Done with an exception (cancellation included). */
    default boolean isFailed() {
        return isDone() && !isSuccess();
    }

    /** Done with a value. */
    boolean isSuccess();

    /**
     * Cancels the future if it is pending (asyncio's {@code Future.cancel()}): a promise is done
     * cancelled at once and its callbacks run with {@link #isCancelled()} true; a task is asked to
     * stop (see {@link Task#cancel()}).
     *
     * @return false if it was already done
     */
    boolean cancel();

    /**
     * {@link #cancel()}, giving a reason that every {@link CancellationException} coming from this
     * future carries in its message ({@link #result()}, {@link #exception()}, an awaiting task's),
     * and that is handed on with the cancellation to what this future waits for.
     *
     * @param reason why, for messages; null for none
     * @return false if it was already done
     */
    boolean cancel(String reason);

    /**
     * The reason this future was cancelled with ({@link #cancel(String)}), or null: not
     * cancelled, or cancelled without one. Derived futures ({@link #map}, {@link #all}, ...) and
     * futures a cancellation is handed on to keep the reason.
     */
    String cancelReason();

    /**
     * The value. Throws the future's exception itself (the same object, checked or not, as
     * asyncio's {@code result()} does), {@link CancellationException} if cancelled.
     *
     * @throws IllegalStateException if the future is still pending
     */
    T result();

    /**
     * The exception, or {@code null} if the future has a value.
     *
     * @throws CancellationException if the future was cancelled
     * @throws IllegalStateException if the future is still pending
     */
    Throwable exception();

    /**
     * Runs {@code callback} on the loop once this future is done; if it is done already, in the
     * loop's next iteration. Callbacks run in the order they were added.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the future is done and its loop
     *                                                         is closed: the callback could never run
     */
    LoopFuture<T> onDone(Consumer<? super LoopFuture<T>> callback);

    /**
     * Removes every registration of {@code callback} that has not run yet.
     *
     * @return true if one was removed
     */
    boolean removeCallback(Consumer<? super LoopFuture<T>> callback);

    /**
     * A {@link CompletableFuture} completed from this future on the loop; cancelling the returned
     * future cancels this one.
     */
    default CompletableFuture<T> toCompletableFuture() {
        CompletableFuture<T> cf = new CompletableFuture<>();
        onDone(f -> {
            if (f.isCancelled()) {
                cf.cancel(false);
            } else if (f.isSuccess()) {
                cf.complete(f.result());
            } else {
                cf.completeExceptionally(f.exception());
            }
        });
        cf.whenComplete((v, e) -> {
            if (cf.isCancelled()) {
                cancel();
            }
        });
        return cf;
    }

    // ------------------------------------------------------------------ combinators

    /**
     * A future of {@code fn} applied to this future's value, on the loop (a done-callback). It fails
     * with this future's exception, or with what {@code fn} throws; it is cancelled if this one is.
     * Cancelling it cancels this future too if still pending (as cancelling a task cancels what it
     * awaits; {@link Async#shield} keeps a shared future out of that).
     */
    default <U> LoopFuture<U> map(Function<? super T, ? extends U> fn) {
        return Futures.map(this, fn);
    }

    /**
     * A future done like the future {@code fn} returns for this future's value ({@code fn} runs on
     * the loop): {@code CompletableFuture.thenCompose}. It fails with this future's exception or
     * with what {@code fn} throws, and is cancelled if this one is. Cancelling it cancels whichever
     * of the two it is waiting for.
     */
    default <U> LoopFuture<U> flatMap(Function<? super T, ? extends LoopFuture<U>> fn) {
        return Futures.flatMap(this, fn);
    }

    /**
     * A future with this future's value, or, if this future fails, the value {@code fn} makes of
     * the exception (on the loop); it fails with what {@code fn} throws. Cancellation is not a
     * failure: a cancelled future stays cancelled. Cancelling the result cancels this future too
     * if still pending.
     */
    default LoopFuture<T> recover(Function<? super Throwable, ? extends T> fn) {
        return Futures.recover(this, fn);
    }

    // ------------------------------------------------------------------ adapters and aggregates

    /**
     * A future of {@code loop} that completes like {@code stage} (from whatever thread completes
     * the stage). Cancelling it cancels the stage if it is a {@link Future} (a
     * {@code CompletableFuture} is), with {@code cancel(false)}: a task awaiting the stage cancels
     * it when it is cancelled.
     */
    static <T> LoopFuture<T> from(CompletionStage<T> stage, Loop loop) {
        Objects.requireNonNull(stage, "stage");
        Promise<T> p = loop.newPromise();
        if (stage instanceof Future<?> cancellable) {
            p.onDone(f -> {
                if (f.isCancelled()) {
                    cancellable.cancel(false);
                }
            });
        }
        stage.whenComplete((v, e) -> {
            if (e == null) {
                p.tryComplete(v);
            } else {
                Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                        ? e.getCause() : e;
                if (cause instanceof CancellationException) {
                    p.cancel();
                } else {
                    p.tryFail(cause);
                }
            }
        });
        return p;
    }

    /**
     * A future of every value, in the order of {@code futures}, done when all are; it fails with the
     * first exception (by completion order) and then no longer waits for the rest, which keep
     * running; it is cancelled if one of them is. Cancelling it (a task awaiting it is cancelled,
     * say) cancels those not done yet, as asyncio's {@code gather} does; it does not wait for them
     * to end (a {@link TaskGroup} does). An empty list gives a future already done with an empty
     * list.
     */
    static <T> LoopFuture<List<T>> all(Loop loop, List<? extends LoopFuture<? extends T>> futures) {
        Promise<List<T>> all = loop.newPromise();
        int n = futures.size();
        if (n == 0) {
            all.complete(List.of());
            return all;
        }
        Object[] values = new Object[n];
        int[] remaining = {n};
        boolean[] childCancelled = {false};
        all.onDone(done -> {
            if (done.isCancelled() && !childCancelled[0]) {
                String reason = done.cancelReason();
                for (LoopFuture<?> f : futures) {
                    if (!f.isDone()) {
                        f.cancel(reason);
                    }
                }
            }
        });
        for (int i = 0; i < n; i++) {
            int index = i;
            LoopFuture<? extends T> f = futures.get(i);
            f.onDone(done -> {
                if (all.isDone()) {
                    return;
                }
                if (done.isCancelled()) {
                    childCancelled[0] = true; // cancelled by a child: the others keep running
                    all.cancel();
                } else if (!done.isSuccess()) {
                    all.tryFail(done.exception());
                } else {
                    values[index] = done.result();
                    if (--remaining[0] == 0) {
                        @SuppressWarnings("unchecked")
                        List<T> list = (List<T>) new ArrayList<>(java.util.Arrays.asList(values));
                        all.tryComplete(list);
                    }
                }
            });
        }
        return all;
    }

    /**
     * A future done like the first of {@code futures} to be done (value, exception or cancellation).
     * Cancelling it leaves {@code futures} running, as asyncio's {@code wait(FIRST_COMPLETED)} does.
     *
     * @throws IllegalArgumentException if {@code futures} is empty: it would never complete
     */
    static <T> LoopFuture<T> any(Loop loop, List<? extends LoopFuture<? extends T>> futures) {
        if (futures.isEmpty()) {
            throw new IllegalArgumentException("any(): no futures given, the result would never complete");
        }
        Promise<T> any = loop.newPromise();
        for (LoopFuture<? extends T> f : futures) {
            f.onDone(done -> {
                if (any.isDone()) {
                    return;
                }
                if (done.isCancelled()) {
                    any.cancel();
                } else if (done.isSuccess()) {
                    any.complete(done.result());
                } else {
                    any.fail(done.exception());
                }
            });
        }
        return any;
    }
}
