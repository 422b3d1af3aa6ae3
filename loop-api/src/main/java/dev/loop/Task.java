package dev.loop;

import java.util.concurrent.CancellationException;

/**
 * Sequential code running on a loop's thread that can suspend without blocking the thread
 * (asyncio's {@code Task}): started with {@link Loop#spawn}, done when its {@link TaskBody} returns
 * (a value), throws (that exception, the same object for every awaiter) or is cancelled.
 *
 * <p>Thread safety: everything here is safe from any thread; {@link #cancel()} off the loop thread
 * is carried out on the loop.
 *
 * @param <T> the value of the body
 */
public sealed interface Task<T> extends LoopFuture<T> permits LoopTask {

    /**
     * Requests cancellation: a {@link CancellationException} is thrown at the point where the task
     * is suspended, or at its next suspension if it is running (a task may cancel itself: its next
     * suspension, whatever it awaits, throws). The task may catch it and clean up; {@code finally}
     * blocks run. The task ends cancelled if the exception leaves the body.
     *
     * <p>A task awaiting a future it can cancel (a task or promise not done yet, an
     * {@link Async#await(java.util.concurrent.CompletionStage) awaited stage}, an
     * {@link LoopFuture#all all}) hands the cancellation on to it, as asyncio does: that future is
     * cancelled, the task wakes when it is done and sees its outcome: a
     * {@code CancellationException} if it ended cancelled; its value (or exception) if it caught
     * the cancellation and finished anyway, and then the task is not cancelled either, although
     * {@link #cancelling()} still counts the request. A cancel that arrives after the awaited
     * future completed but before the task resumed wins: the task gets the
     * {@code CancellationException}.
     *
     * @return false if the task is already done (then nothing happens), else true
     */
    @Override
    boolean cancel();

    /**
     * {@link #cancel()}, giving a reason that the {@link CancellationException} carries in its
     * message: the one thrown in the task, the one its awaiters get, and the one of a future the
     * cancellation is handed on to.
     *
     * @param reason why, for messages; null for none
     * @return false if the task is already done, else true
     */
    @Override
    boolean cancel(String reason);

    /**
     * Cancellation requests not withdrawn with {@link #uncancel()} (asyncio's {@code cancelling()}).
     * Structured code (timeouts, task groups) uses this count so that it never swallows a cancel
     * meant for someone else.
     */
    int cancelling();

    /**
     * Withdraws one cancellation request, after the code that requested it has handled the
     * resulting {@link CancellationException}; at zero a cancellation not yet delivered is dropped
     * too. Loop thread only.
     *
     * @return the requests left
     */
    int uncancel();

    /** A name for messages: {@code Task-<n>}, numbered per loop. */
    String name();
}
