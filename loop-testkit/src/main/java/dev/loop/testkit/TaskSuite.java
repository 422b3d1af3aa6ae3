package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.TaskBody;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;

/**
 * What the task suites share: the cell (backend x timer strategy x task mechanism), its loops, and
 * running a task to its end. Every loop runs on an auto-advancing {@link ManualClock}, so sleeps
 * cost no real time.
 *
 * <p>The task suites are named {@code Task*Contract}: loop-conformance runs them a second time in a
 * JVM without the continuation export, on the fallback mechanism, by that pattern.
 */
public abstract class TaskSuite {
    /** How long {@link #runWithWatchdog} lets a future hang, in real time, before it stops the loop. */
    private static final long WATCHDOG_MILLIS = 10_000;

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    /** The backend, timers and task mechanism under test. */
    protected LoopOptions options() {
        return cell.options();
    }

    /** A loop of the cell on an auto-advancing manual clock, closed after the test. */
    protected Loop open() {
        return open(options().withClock(ManualClock.autoAdvancing()));
    }

    protected Loop open(LoopOptions o) {
        return loops.open(o);
    }

    /** The loop's time in milliseconds: on the manual clock, exactly the sleeps that have passed. */
    protected static long millis(Loop loop) {
        return TimeUnit.NANOSECONDS.toMillis(loop.time());
    }

    /** Spawns {@code body} and runs the loop until it is done. */
    protected static <T> T runTask(Loop loop, TaskBody<T> body) {
        return loop.runUntilComplete(loop.spawn(body));
    }

    /**
     * runUntilComplete, but the loop is stopped (and the call throws) if {@code f} hangs for 10 s.
     * The watchdog is a thread, not a timer: on the auto-advancing clock a timer would fire as soon
     * as the loop had nothing else to do.
     */
    protected static <T> T runWithWatchdog(Loop loop, LoopFuture<T> f) {
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(WATCHDOG_MILLIS);
                loop.stop();
            } catch (InterruptedException finished) {
                // f completed in time
            }
        });
        try {
            return loop.runUntilComplete(f);
        } finally {
            watchdog.interrupt();
        }
    }
}
