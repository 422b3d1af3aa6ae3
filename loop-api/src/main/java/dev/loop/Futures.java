package dev.loop;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * What tasks need to do with futures beyond the public API: follow a future of another loop on
 * the task's own loop; and the combinators of {@link LoopFuture}. Package-private helpers; thread safety as each method says.
 */
final class Futures {
    private Futures() {
    }

    /**
     * A future of {@code loop} following {@code f} of another loop; its cancellation cancels
     * {@code f}.
     *
     * <p>The outcome is copied where {@code f} completes, not by a callback on {@code f}'s loop:
     * that loop may never run again (a {@code runUntilComplete(f)} returns as soon as {@code f} is
     * done, possibly before a callback registered a moment later has run), and the awaiting task
     * would then wait forever. Copying is thread-safe: completing {@code p} hands its callbacks
     * to {@code loop} through its inbox.
     */
    static <V> LoopFuture<V> marshal(LoopFuture<V> f, Loop loop) {
        Promise<V> p = loop.newPromise();
        DefaultPromise.of(f).relayTo(done -> relay(done, p));
        p.onDone(d -> {
            if (d.isCancelled() && !f.isDone()) {
                f.cancel(d.cancelReason());
            }
        });
        return p;
    }

    /** {@link #copy} from any thread; nothing to do if {@code to}'s loop closed meanwhile. */
    private static <V> void relay(LoopFuture<V> from, Promise<V> to) {
        try {
            copy(from, to);
        } catch (RejectedExecutionException closed) {
            // the awaiting loop closed and cancelled its tasks: nobody is left to tell
        }
    }

    /** Completes {@code to} as {@code from} is done: value, exception or cancellation (with its reason). */
    static <V> void copy(LoopFuture<V> from, Promise<V> to) {
        if (from.isCancelled()) {
            to.cancel(from.cancelReason());
        } else if (from.isSuccess()) {
            to.tryComplete(from.result());
        } else {
            to.tryFail(from.exception());
        }
    }

    // ------------------------------------------------------------------ combinators (callbacks on the loop)

    static <T, U> LoopFuture<U> map(LoopFuture<T> from, Function<? super T, ? extends U> fn) {
        Objects.requireNonNull(fn, "fn");
        Promise<U> to = from.loop().newPromise();
        from.onDone(f -> {
            if (passFailure(f, to)) {
                return;
            }
            U value;
            try {
                value = fn.apply(f.result());
            } catch (Throwable t) {
                to.tryFail(t);
                return;
            }
            to.tryComplete(value);
        });
        cancelWith(to, from);
        return to;
    }

    static <T, U> LoopFuture<U> flatMap(LoopFuture<T> from, Function<? super T, ? extends LoopFuture<U>> fn) {
        Objects.requireNonNull(fn, "fn");
        Loop loop = from.loop();
        Promise<U> to = loop.newPromise();
        // What `to` waits for: `from`, then the future fn returned. Loop thread only.
        LoopFuture<?>[] upstream = {from};
        from.onDone(f -> {
            if (passFailure(f, to)) {
                return;
            }
            LoopFuture<U> next;
            try {
                next = Objects.requireNonNull(fn.apply(f.result()), "flatMap: the function returned null, not a future");
            } catch (Throwable t) {
                to.tryFail(t);
                return;
            }
            LoopFuture<U> local = next.loop() == loop ? next : marshal(next, loop);
            upstream[0] = local;
            if (to.isCancelled()) {
                local.cancel(to.cancelReason()); // cancelled while fn ran
            } else {
                local.onDone(n -> copy(n, to));
            }
        });
        to.onDone(d -> {
            LoopFuture<?> u = upstream[0];
            if (d.isCancelled() && !u.isDone()) {
                u.cancel(d.cancelReason());
            }
        });
        return to;
    }

    static <T> LoopFuture<T> recover(LoopFuture<T> from, Function<? super Throwable, ? extends T> fn) {
        Objects.requireNonNull(fn, "fn");
        Promise<T> to = from.loop().newPromise();
        from.onDone(f -> {
            if (f.isCancelled()) {
                to.cancel(f.cancelReason());
            } else if (f.isSuccess()) {
                to.tryComplete(f.result());
            } else {
                T value;
                try {
                    value = fn.apply(f.exception());
                } catch (Throwable t) {
                    to.tryFail(t);
                    return;
                }
                to.tryComplete(value);
            }
        });
        cancelWith(to, from);
        return to;
    }

    /** Passes a cancellation or failure of {@code f} on to {@code to}; false if {@code f} has a value. */
    private static boolean passFailure(LoopFuture<?> f, Promise<?> to) {
        if (f.isCancelled()) {
            to.cancel(f.cancelReason());
            return true;
        }
        if (!f.isSuccess()) {
            to.tryFail(f.exception());
            return true;
        }
        return false;
    }

    /** Cancelling {@code derived} cancels {@code source} if it is still pending. */
    private static void cancelWith(LoopFuture<?> derived, LoopFuture<?> source) {
        derived.onDone(d -> {
            if (d.isCancelled() && !source.isDone()) {
                source.cancel(d.cancelReason());
            }
        });
    }
}
