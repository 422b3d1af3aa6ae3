package dev.loop;

import dev.loop.log.LogContext;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How a {@link LoopTask} suspends and resumes: on a {@code jdk.internal.vm.Continuation} run by
 * the loop thread itself ({@link ContinuationMechanism}), or, where that class is not exported, on
 * a virtual thread that takes turns with the loop thread ({@link ThreadMechanism}).
 *
 * <p>Not thread-safe: {@link #resume} runs on the loop thread, {@link #suspend} inside the task,
 * and the two never overlap.
 */
abstract class TaskMechanism {
    /** The system property read by every new loop: {@code continuation}, {@code threads} or {@code auto}. */
    static final String PROPERTY = LoopOptions.TASKS_PROPERTY;
    static final String CONTINUATION = "continuation";
    static final String THREADS = "threads";
    static final String AUTO = "auto";
    /** The flag users must pass to get continuations; named in every message about them. */
    static final String FLAG = "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED";

    private static final System.Logger LOG = System.getLogger("dev.loop.tasks");
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /** The mechanism's name, as the property spells it. */
    abstract String name();

    /** Prepares {@code task} to run its body on its first {@link #resume}. */
    abstract void start(LoopTask<?> task);

    /**
     * Runs {@code task} on the calling (loop) thread until it suspends or its body returns. The
     * body's own exceptions never come out of here: {@link LoopTask#runBody()} keeps them.
     */
    abstract void resume(LoopTask<?> task);

    /**
     * Called inside the task: gives the loop thread back and returns when the task is resumed.
     *
     * @throws IllegalStateException if the task cannot suspend here (a pinned frame); the task is
     *                               still running and the caller must undo its registration
     */
    abstract void suspend(LoopTask<?> task);

    /** Releases what the mechanism kept for a task that has finished. */
    abstract void finished(LoopTask<?> task);

    /**
     * The mechanism for a new loop, chosen by {@code requested} (the property's value, or null); a
     * warning names {@code loopName}, the loop whose first task chose.
     */
    static TaskMechanism forName(String requested, String loopName) {
        return choose(requested, ContinuationMechanism.AVAILABLE, ContinuationMechanism.UNAVAILABLE_REASON, WARNED,
                LOG, loopName);
    }

    /**
     * The selection rule, separate from the JVM's state so it can be tested both ways: an explicit
     * name must be usable; {@code auto} (or nothing) takes continuations when exported, else falls
     * back to threads and warns once per {@code warned}, naming the flag.
     */
    static TaskMechanism choose(String requested, boolean continuationAvailable, String unavailableReason,
                                AtomicBoolean warned, System.Logger log, String loopName) {
        String name = requested == null || requested.isBlank() ? AUTO : requested.trim().toLowerCase(Locale.ROOT);
        switch (name) {
            case CONTINUATION -> {
                if (!continuationAvailable) {
                    throw new IllegalStateException("-D" + PROPERTY + "=continuation, but continuations are unavailable ("
                            + unavailableReason + "): start the JVM with " + FLAG
                            + " (on the module path: =dev.loop), or use -D" + PROPERTY + "=threads");
                }
                return new ContinuationMechanism();
            }
            case THREADS -> {
                return new ThreadMechanism();
            }
            case AUTO -> {
                if (continuationAvailable) {
                    return new ContinuationMechanism();
                }
                if (warned.compareAndSet(false, true) && log.isLoggable(System.Logger.Level.WARNING)) {
                    log.log(System.Logger.Level.WARNING, LogContext.of(loopName).line("tasks run on virtual threads "
                            + "taking turns with the loop thread (several times slower per switch) because "
                            + "jdk.internal.vm.Continuation is not accessible (" + unavailableReason + "); start the JVM "
                            + "with " + FLAG + " (on the module path: =dev.loop) for fast tasks"));
                }
                return new ThreadMechanism();
            }
            default -> throw new IllegalArgumentException("unknown -D" + PROPERTY + "=" + requested
                    + "; expected continuation, threads or auto");
        }
    }

    /** The clear error for an await in a frame the mechanism cannot suspend. */
    static IllegalStateException pinned(String why, Throwable cause) {
        return new IllegalStateException("a task cannot suspend here: the frame is pinned to the loop thread (" + why
                + "). Awaiting is impossible inside a class initializer (static block or static field "
                + "initializer), under a native frame, or while holding a monitor where the JDK cannot release it: "
                + "move the await out of that code, or make it non-blocking (Loop.callSoon, LoopFuture.onDone)", cause);
    }
}
