package dev.loop;

import dev.loop.engine.LoopEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One loop's task machinery: spawning, resuming, the list of live tasks, {@link Loop#run}, and
 * what happens to tasks when the loop closes. Kept out of {@link DefaultLoop} so the engine stays
 * about callbacks.
 *
 * <p>Not thread-safe: loop thread only, except {@link #spawn} (which hands the start to the loop).
 */
final class TaskScheduler {
    /** Rounds of "cancel what is left, run until quiet" at close before the rest is reported. */
    static final int MAX_CLOSE_ROUNDS = 10;
    /** Iterations per close round at most, so a task rescheduling itself cannot hold close forever. */
    static final int MAX_CLOSE_PASSES = 10_000;

    private final DefaultLoop loop;
    private final String requested;
    private final AtomicLong ids = new AtomicLong();
    private volatile TaskMechanism mechanism;

    /** The task holding the loop thread's turn right now, or null while callbacks run. */
    LoopTask<?> current;
    private boolean closing;
    /** Tasks started and not finished, so close can cancel them and run() can wait for them. */
    private final TaskRoster live = new TaskRoster();
    /** Tasks that failed and whose exception nobody has read yet: reported at close. */
    private final TaskRoster failed = new TaskRoster();
    private Promise<Void> allDone;

    TaskScheduler(DefaultLoop loop, String requestedMechanism) {
        this.loop = loop;
        this.requested = requestedMechanism;
    }

    /** Chosen on first use, so a loop that never runs a task never warns about the fallback. */
    TaskMechanism mechanism() {
        TaskMechanism m = mechanism;
        if (m == null) {
            synchronized (this) {
                m = mechanism;
                if (m == null) {
                    m = TaskMechanism.forName(requested, loop.name());
                    mechanism = m;
                }
            }
        }
        return m;
    }

    /** The mechanism's name, or {@code none} before the first task chose one. */
    String mechanismName() {
        TaskMechanism m = mechanism;
        return m == null ? "none" : m.name();
    }

    boolean isClosing() {
        return closing;
    }

    int liveCount() {
        return live.size();
    }

    TaskRoster failedRoster() {
        return failed;
    }

    <T> Task<T> spawn(TaskBody<T> body) {
        Objects.requireNonNull(body, "body");
        if (loop.isClosed()) {
            throw new RejectedExecutionException("loop is closed (backend " + loop.backendName()
                    + "): cannot spawn a task on it");
        }
        mechanism(); // an unusable explicit choice fails here, in the caller, not later in the loop
        LoopTask<T> t = new LoopTask<>(this, loop, body, ids.incrementAndGet());
        if (loop.inLoop()) {
            LoopTask<?> parent = current;
            if (parent != null) {
                t.locals(parent.locals()); // context is inherited at spawn time, as contextvars are
            }
            link(t);
        }
        t.scheduleStart();
        return t;
    }

    /** Gives {@code t} the loop thread until it suspends or finishes. */
    void resume(LoopTask<?> t) {
        if (current != null) {
            throw new IllegalStateException("cannot resume " + t + " from inside " + current);
        }
        current = t;
        t.markRunning();
        loop.stats().taskTurn();
        long start = loop.sliceStart(); // debug mode: a slow turn is logged with the task's name
        long timed = LoopEvents.SLOW_TASK_TURN.on() ? System.nanoTime() : 0; // a recording wants slow turns
        try {
            mechanism.resume(t);
        } catch (Throwable e) {
            loop.report("the task mechanism failed to resume " + t, e, t);
        } finally {
            current = null;
        }
        loop.sliceEnd(start, t); // named by its toString, built only for a slow turn in debug mode
        if (timed != 0) {
            loop.stats().taskTurnTook(t, System.nanoTime() - timed);
        }
        if (t.finished()) {
            mechanism.finished(t);
        }
    }

    // ------------------------------------------------------------------ rosters

    void link(LoopTask<?> t) {
        live.add(t);
    }

    void failed(LoopTask<?> t) {
        if (!t.isRetrieved()) {
            failed.add(t);
        }
    }

    void unlink(LoopTask<?> t) {
        TaskRoster r = t.roster();
        if (r != null && r.remove(t) && r == live && live.size() == 0 && allDone != null) {
            Promise<Void> p = allDone;
            allDone = null;
            p.tryComplete(null);
        }
    }

    // ------------------------------------------------------------------ run and close

    /** asyncio.run: the main task to completion, then every other task cancelled and awaited, then close. */
    <T> T run(TaskBody<T> body) {
        if (loop.isRunning()) {
            throw new IllegalStateException("run() called while the loop is running: spawn a task instead");
        }
        if (loop.isClosed()) {
            throw new IllegalStateException("loop is closed (backend " + loop.backendName() + "): cannot run it");
        }
        try {
            return loop.runUntilComplete(spawn(body));
        } finally {
            try {
                cancelRemaining();
            } finally {
                loop.close();
            }
        }
    }

    private void cancelRemaining() {
        if (live.size() == 0 || loop.isClosed()) {
            return;
        }
        for (LoopTask<?> t : live.snapshot()) {
            t.cancel();
        }
        if (live.size() > 0 && !Thread.currentThread().isInterrupted()) { // interrupted: close() finishes them
            Promise<Void> p = loop.newPromise();
            allDone = p;
            loop.runUntilComplete(p);
        }
    }

    /**
     * The loop's close hook: suspended tasks would otherwise be dropped with their {@code finally}
     * blocks never run, so each is cancelled and resumed until it ends. Timers no longer fire while
     * closing, so a task still waiting after a round is cancelled again.
     */
    void onClose() {
        closing = true;
        for (int round = 0; round < MAX_CLOSE_ROUNDS && live.size() > 0; round++) {
            for (LoopTask<?> t : live.snapshot()) {
                t.cancel();
            }
            for (int pass = 0; pass < MAX_CLOSE_PASSES && !loop.idle() && live.size() > 0; pass++) {
                loop.runOnce();
            }
        }
        if (live.size() > 0) {
            loop.report(live.size() + " task(s) were still running after being cancelled " + MAX_CLOSE_ROUNDS
                    + " times while the loop closed (they ignore cancellation or wait on something that never "
                    + "completes): " + live.snapshot(), null, null);
        }
        for (LoopTask<?> t : failed.snapshot()) {
            if (!t.isRetrieved()) {
                // exception() marks it retrieved, so debug mode's collection report stays silent
                loop.report("task exception was never retrieved: " + t.name(), t.exception(), t);
            }
        }
        failed.clear();
    }
}
