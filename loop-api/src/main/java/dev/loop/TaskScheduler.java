package dev.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One loop's task machinery: spawning, resuming, the list of live tasks, {@link Loop#run}, and
 * what happens to tasks when the loop closes. Kept out of {@link EventLoop} so the engine stays
 * about callbacks.
 *
 * <p>Not thread-safe: loop thread only, except {@link #spawn} (which hands the start to the loop).
 */
final class TaskScheduler {
    static final byte NONE = 0;
    static final byte LIVE = 1;
    static final byte FAILED = 2;
    /** Rounds of "cancel what is left, run until quiet" at close before the rest is reported. */
    static final int MAX_CLOSE_ROUNDS = 10;
    /** Iterations per close round at most, so a task rescheduling itself cannot hold close forever. */
    static final int MAX_CLOSE_PASSES = 10_000;

    private final EventLoop loop;
    private final String requested;
    private final AtomicLong ids = new AtomicLong();
    private volatile TaskMechanism mechanism;

    /** The task holding the loop thread's turn right now, or null while callbacks run. */
    LoopTask<?> current;
    private boolean closing;
    private LoopTask<?> liveHead;
    private int liveCount;
    private LoopTask<?> failedHead;
    private Promise<Void> allDone;

    TaskScheduler(EventLoop loop, String requestedMechanism) {
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
                    m = TaskMechanism.forName(requested);
                    mechanism = m;
                }
            }
        }
        return m;
    }

    boolean isClosing() {
        return closing;
    }

    int liveCount() {
        return liveCount;
    }

    <T> Task<T> spawn(TaskBody<T> body) {
        Objects.requireNonNull(body, "body");
        if (loop.isClosed()) {
            throw new IllegalStateException("the loop is closed: cannot spawn a task on " + loop);
        }
        mechanism(); // an unusable explicit choice fails here, in the caller, not later in the loop
        LoopTask<T> t = new LoopTask<>(this, loop, body, ids.incrementAndGet());
        if (loop.inLoop()) {
            LoopTask<?> parent = current;
            if (parent != null) {
                t.locals = parent.locals; // context is inherited at spawn time, as contextvars are
            }
            link(t);
        }
        loop.callSoon(t.stepper);
        return t;
    }

    /** Gives {@code t} the loop thread until it suspends or finishes. */
    void resume(LoopTask<?> t) {
        if (current != null) {
            throw new IllegalStateException("cannot resume " + t + " from inside " + current);
        }
        current = t;
        t.state = LoopTask.RUNNING;
        try {
            mechanism.resume(t);
        } catch (Throwable e) {
            loop.report("the task mechanism failed to resume " + t, e, t);
        } finally {
            current = null;
        }
        if (t.state == LoopTask.DONE) {
            mechanism.finished(t);
        }
    }

    // ------------------------------------------------------------------ lists

    void link(LoopTask<?> t) {
        if (t.list == LIVE) {
            return;
        }
        push(t, LIVE);
        liveCount++;
    }

    void failed(LoopTask<?> t) {
        if (!t.retrieved) {
            push(t, FAILED);
        }
    }

    private void push(LoopTask<?> t, byte which) {
        LoopTask<?> head = which == LIVE ? liveHead : failedHead;
        t.list = which;
        t.prev = null;
        t.next = head;
        if (head != null) {
            head.prev = t;
        }
        if (which == LIVE) {
            liveHead = t;
        } else {
            failedHead = t;
        }
    }

    void unlink(LoopTask<?> t) {
        byte which = t.list;
        if (which == NONE) {
            return;
        }
        if (t.prev != null) {
            t.prev.next = t.next;
        } else if (which == LIVE) {
            liveHead = t.next;
        } else {
            failedHead = t.next;
        }
        if (t.next != null) {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        t.list = NONE;
        if (which == LIVE && --liveCount == 0 && allDone != null) {
            Promise<Void> p = allDone;
            allDone = null;
            p.tryComplete(null);
        }
    }

    private List<LoopTask<?>> live() {
        List<LoopTask<?>> out = new ArrayList<>(liveCount);
        for (LoopTask<?> t = liveHead; t != null; t = t.next) {
            out.add(t);
        }
        return out;
    }

    // ------------------------------------------------------------------ run and close

    /** asyncio.run: the main task to completion, then every other task cancelled and awaited, then close. */
    <T> T run(TaskBody<T> body) {
        if (loop.isRunning()) {
            throw new IllegalStateException("run() called while the loop is running: spawn a task instead");
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
        if (liveCount == 0 || loop.isClosed()) {
            return;
        }
        for (LoopTask<?> t : live()) {
            t.cancel();
        }
        if (liveCount > 0 && !Thread.currentThread().isInterrupted()) { // interrupted: close() finishes them
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
        for (int round = 0; round < MAX_CLOSE_ROUNDS && liveCount > 0; round++) {
            for (LoopTask<?> t : live()) {
                t.cancel();
            }
            for (int pass = 0; pass < MAX_CLOSE_PASSES && !loop.idle() && liveCount > 0; pass++) {
                loop.runOnce();
            }
        }
        if (liveCount > 0) {
            loop.report(liveCount + " task(s) were still running after being cancelled " + MAX_CLOSE_ROUNDS
                    + " times while the loop closed (they ignore cancellation or wait on something that never "
                    + "completes): " + live(), null, null);
        }
        List<LoopTask<?>> failed = new ArrayList<>();
        for (LoopTask<?> t = failedHead; t != null; t = t.next) {
            failed.add(t);
        }
        for (LoopTask<?> t : failed) {
            if (!t.retrieved) {
                // exception() marks it retrieved, so debug mode's collection report stays silent
                loop.report("task exception was never retrieved: " + t.name(), t.exception(), t);
            }
        }
        failedHead = null;
    }
}
