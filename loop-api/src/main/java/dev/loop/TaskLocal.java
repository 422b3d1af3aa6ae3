package dev.loop;

import java.util.Arrays;
import java.util.Objects;

/**
 * A value per task, asyncio's {@code contextvars}: all tasks of a loop share one thread, so a
 * {@link ThreadLocal} set by one task is seen by the next task that runs; a {@code TaskLocal}
 * lives in the task instead. A task starts with the values of the task that spawned it (a
 * snapshot: later changes on either side are not seen by the other). Outside a task,
 * {@link #get()} returns the initial value.
 *
 * <p>Values are kept in a small copy-on-write array per task, so spawning copies nothing and
 * {@link #get()} is a short scan; meant for a handful of locals (request id, deadline, user).
 *
 * <p>Not thread-safe: use it from tasks and callbacks of the loop.
 *
 * @param <T> the value's type
 */
public final class TaskLocal<T> {
    static final Object[] EMPTY = new Object[0];

    private final String name;
    private final T initial;

    private TaskLocal(String name, T initial) {
        this.name = Objects.requireNonNull(name, "name");
        this.initial = initial;
    }

    /** A task-local whose value is {@code null} until set. */
    public static <T> TaskLocal<T> named(String name) {
        return new TaskLocal<>(name, null);
    }

    /** A task-local whose value is {@code initial} until set. */
    public static <T> TaskLocal<T> withInitial(String name, T initial) {
        return new TaskLocal<>(name, initial);
    }

    /** The current task's value, or the initial value (also outside a task). */
    @SuppressWarnings("unchecked")
    public T get() {
        LoopTask<?> t = LoopTask.current();
        if (t != null) {
            Object[] a = t.locals();
            for (int i = 0; i < a.length; i += 2) {
                if (a[i] == this) {
                    return (T) a[i + 1];
                }
            }
        }
        return initial;
    }

    /**
     * Sets the current task's value; tasks it spawns from now on start with it.
     *
     * @throws IllegalStateException outside a task
     */
    public void set(T value) {
        LoopTask<?> t = LoopTask.require("TaskLocal.set");
        Object[] a = t.locals();
        for (int i = 0; i < a.length; i += 2) {
            if (a[i] == this) {
                Object[] copy = a.clone(); // the array may be shared with tasks spawned earlier
                copy[i + 1] = value;
                t.locals(copy);
                return;
            }
        }
        Object[] grown = Arrays.copyOf(a, a.length + 2);
        grown[a.length] = this;
        grown[a.length + 1] = value;
        t.locals(grown);
    }

    /** Runs {@code body} with this local set to {@code value}, restoring the previous value after. */
    public <R> R with(T value, TaskBody<R> body) throws Exception {
        T previous = get();
        set(value);
        try {
            return body.call();
        } finally {
            set(previous);
        }
    }

    @Override
    public String toString() {
        return "TaskLocal[" + name + "]";
    }
}
