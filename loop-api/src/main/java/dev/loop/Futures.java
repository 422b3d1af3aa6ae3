package dev.loop;

import java.util.concurrent.RejectedExecutionException;

/**
 * What tasks need to do with futures beyond the public API: cancel what a cancelled task awaited,
 * and follow a future of another loop on the task's own loop. Package-private helpers; thread
 * safety as each method says.
 */
final class Futures {
    private Futures() {
    }

    /** Cancels what a cancelled task was waiting for; false if it cannot (done, or not cancellable). */
    static boolean cancel(LoopFuture<?> f) {
        if (f instanceof Task<?> task) {
            return task.cancel();
        }
        if (f instanceof Promise<?> p) {
            return p.cancel();
        }
        return false;
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
        if (f instanceof DefaultPromise<V> d) {
            d.relayTo(done -> relay(done, p));
        } else {
            f.onDone(done -> copy(done, p));
            if (f.isDone()) {
                relay(f, p); // done meanwhile: do not count on its loop running the callback
            }
        }
        p.onDone(d -> {
            if (d.isCancelled() && !f.isDone()) {
                cancel(f);
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

    /** Completes {@code to} as {@code from} is done: value, exception or cancellation. */
    static <V> void copy(LoopFuture<V> from, Promise<V> to) {
        if (from.isCancelled()) {
            to.cancel();
        } else if (from.isSuccess()) {
            to.tryComplete(from.result());
        } else {
            to.tryFail(from.exception());
        }
    }
}
