package dev.loop;

/**
 * The writable side of a {@link LoopFuture}. Completing or cancelling is safe from any thread;
 * the callbacks then run on the loop.
 */
public interface Promise<T> extends LoopFuture<T> {
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
    boolean cancel();
}
