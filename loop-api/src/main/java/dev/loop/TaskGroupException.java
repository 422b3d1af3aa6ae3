package dev.loop;

import java.util.List;

/**
 * Every failure of a {@link TaskGroup} at once (asyncio's {@code ExceptionGroup}): the first is
 * also the cause, the others are suppressed, and {@link #failures()} lists them all in the order
 * they happened. Cancellations are not failures and never appear here.
 */
public final class TaskGroupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient List<Throwable> failures;

    TaskGroupException(List<Throwable> failures) {
        super(failures.size() + " task(s) of the group failed; first: " + failures.get(0), failures.get(0));
        this.failures = List.copyOf(failures);
        for (int i = 1; i < failures.size(); i++) {
            addSuppressed(failures.get(i));
        }
    }

    /** The failures, in the order they happened (for {@link TaskGroup#run}, the body's last). */
    public List<Throwable> failures() {
        return failures;
    }
}
