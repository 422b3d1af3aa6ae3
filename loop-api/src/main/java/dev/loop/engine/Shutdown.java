package dev.loop.engine;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The steps of {@link Engine#close()} after it has claimed the loop, in order (docs/design.md,
 * "Closing"): shut the inbox, run the close hooks (tasks are cancelled and run their
 * {@code finally} blocks there), cancel the timers, run what is left until nothing is, seal the
 * inbox and run what the seal took, release the backend (and run what its close completed) and the
 * clock. Nothing submitted before
 * close returns is lost: it runs, or its submitter is told it was refused.
 *
 * <p>Not thread-safe: made and run once, by the thread closing the loop, which owns the loop
 * meanwhile.
 */
final class Shutdown {
    private final Engine engine;
    private final Inbox inbox;
    private final Submissions submissions;
    private final ReadyQueue ready;
    private final EngineTimers timers;
    private final List<Runnable> closeHooks;
    private final AutoCloseable clockSubscription;

    Shutdown(Engine engine, Inbox inbox, Submissions submissions, ReadyQueue ready, EngineTimers timers,
             List<Runnable> closeHooks, AutoCloseable clockSubscription) {
        this.engine = engine;
        this.inbox = inbox;
        this.submissions = submissions;
        this.ready = ready;
        this.timers = timers;
        this.closeHooks = closeHooks;
        this.clockSubscription = clockSubscription;
    }

    void run() {
        inbox.shut();
        // Tasks resumed by the close hooks look the loop up as the current engine, as when it runs.
        Engine previous = CurrentEngine.get();
        CurrentEngine.set(engine);
        try {
            for (Runnable hook : closeHooks) {
                engine.runCallback(hook);
            }
            submissions.drain();
            timers.cancelAll();
            runWhile(() -> !ready.isEmpty() || !inbox.isEmpty());
        } finally {
            inbox.seal(submissions::accept);
            // What the seal took runs now; the inbox is no longer drained by this thread.
            runWhile(() -> !ready.isEmpty());
            if (!ready.isEmpty()) {
                engine.report("loop closed with " + ready.size() + " callbacks still being rescheduled after "
                        + Engine.MAX_CLOSE_PASSES + " passes; they were dropped", null, null);
            }
            try {
                engine.io().close();
            } catch (Throwable t) {
                engine.report("I/O backend " + engine.backendName() + " failed to close", t, engine.io());
            }
            // A backend may complete futures as it closes (a close future waiting for its socket
            // to be released, docs/adr/0011-completion-backends.md): their callbacks run too, in
            // passes as runOnce would, without polling the closed backend.
            runReadyWithoutPolling();
            try {
                clockSubscription.close();
            } catch (Throwable ignored) {
                // unsubscribing from a clock cannot fail in a way that matters here
            }
            CurrentEngine.set(previous);
        }
    }

    private void runReadyWithoutPolling() {
        for (int passes = 0; !ready.isEmpty() && passes < Engine.MAX_CLOSE_PASSES; passes++) {
            for (int n = ready.size(); n > 0; n--) { // a snapshot: what these schedule waits a pass
                engine.runCallback(ready.pollFirst());
            }
        }
        if (!ready.isEmpty()) {
            engine.report("loop closed with " + ready.size() + " callbacks still being rescheduled after its backend"
                    + " closed; they were dropped", null, null);
            ready.clear();
        }
    }

    /** Iterations while {@code more} holds, {@link Engine#MAX_CLOSE_PASSES} at most. */
    private void runWhile(BooleanSupplier more) {
        for (int passes = 0; more.getAsBoolean() && passes < Engine.MAX_CLOSE_PASSES; passes++) {
            engine.runOnce();
        }
    }
}
