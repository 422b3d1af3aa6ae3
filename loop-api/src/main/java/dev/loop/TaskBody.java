package dev.loop;

/**
 * The code of a {@link Task}: sequential code that may suspend with {@link Async#await},
 * {@link Async#sleep} and the like. It returns the task's value (return {@code null} for a task
 * run for its effects) or throws, which fails the task with that exception.
 *
 * @param <T> the task's value
 */
@FunctionalInterface
public interface TaskBody<T> {
    /** Runs the task's code; called once, on the loop thread, inside the task. */
    T call() throws Exception;
}
