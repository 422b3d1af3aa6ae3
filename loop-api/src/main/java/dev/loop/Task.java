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
public interface Task<T> extends LoopFuture<T> {

    /**
     * Requests cancellation: a {@link CancellationException} is thrown at the point where the task
     * is suspended (or at its next suspension if it is running), after cancelling the future it is
     * awaiting. The task may catch it and clean up; {@code finally} blocks run. The task ends
     * cancelled if the exception leaves the body. A cancel that arrives after the awaited future
     * completed but before the task resumed still wins.
     *
     * @return false if the task is already done (then nothing happens), else true
     */
    boolean cancel();

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
