package dev.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The read side of an asyncio-style future bound to a {@link Loop}: pending, then done with a
 * value, done with an exception, or cancelled. Thread-safe.
 *
 * <p>Callbacks added with {@link #onDone} always run on the loop, scheduled with
 * {@link Loop#callSoon}: never inline in the thread that completes the future, and never inline in
 * {@code onDone} when the future is already done.
 */
public interface LoopFuture<T> {

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
        if (this instanceof Promise<T> p) {
            cf.whenComplete((v, e) -> {
                if (cf.isCancelled()) {
                    p.cancel();
                }
            });
        }
        return cf;
    }

    /**
     * A future of {@code loop} that completes like {@code stage} (from whatever thread completes
     * the stage).
     */
    static <T> LoopFuture<T> from(CompletionStage<T> stage, Loop loop) {
        Objects.requireNonNull(stage, "stage");
        Promise<T> p = loop.newPromise();
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
     * first exception (by completion order) and then no longer waits for the rest. An empty list
     * gives a future already done with an empty list.
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
        for (int i = 0; i < n; i++) {
            int index = i;
            LoopFuture<? extends T> f = futures.get(i);
            f.onDone(done -> {
                if (all.isDone()) {
                    return;
                }
                if (done.isCancelled()) {
                    all.cancel();
                } else if (!done.isSuccess()) {
                    all.fail(done.exception());
                } else {
                    values[index] = done.result();
                    if (--remaining[0] == 0) {
                        @SuppressWarnings("unchecked")
                        List<T> list = (List<T>) new ArrayList<>(java.util.Arrays.asList(values));
                        all.complete(list);
                    }
                }
            });
        }
        return all;
    }

    /**
     * A future done like the first of {@code futures} to be done (value, exception or cancellation).
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
