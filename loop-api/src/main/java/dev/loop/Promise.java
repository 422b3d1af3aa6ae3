package dev.loop;

/**
 * The writable side of a {@link LoopFuture}. Completing or cancelling is safe from any thread;
 * the callbacks then run on the loop. Completing a future whose loop has closed still completes
 * it (its readers, and tasks or threads blocked awaiting it, see the outcome) and does not throw;
 * its callbacks cannot run any more and are not run (a warning on the {@code dev.loop} logger
 * counts them).
 */
public sealed interface Promise<T> extends LoopFuture<T> permits DefaultPromise {
    /**
     * Completes with a value.
     *
     * @throws IllegalStateException if already done; the message names the state it is in
     */
    void complete(T value);

    /**
     * Completes with an exception.
     *
     * @throws IllegalStateException if already done; the message names the state it is in
     */
    void fail(Throwable error);

    /** Like {@link #complete} but returns false instead of throwing when already done. */
    boolean tryComplete(T value);

    /** Like {@link #fail} but returns false instead of throwing when already done. */
    boolean tryFail(Throwable error);

    /**
     * Cancels a pending future; its callbacks run with {@link #isCancelled()} true.
     *
     * @return false if it was already done
     */
    @Override
    boolean cancel();

    /**
     * {@link #cancel()}, giving a reason that the {@link java.util.concurrent.CancellationException}s
     * of {@link #result()} and {@link #exception()} carry in their message.
     *
     * @param reason why, for messages; null for none
     * @return false if it was already done
     */
    @Override
    boolean cancel(String reason);
}
