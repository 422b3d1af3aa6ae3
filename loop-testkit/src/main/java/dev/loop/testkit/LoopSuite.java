package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;

/**
 * What the engine's suites share: the cell (backend x timer strategy, no tasks), its loops, and the
 * two moves they all make: running one more iteration, and doing something on another thread that
 * happens-before what follows.
 */
public abstract class LoopSuite {

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    /** The backend and timers under test; the suites add clocks and debug settings themselves. */
    protected LoopOptions options() {
        return cell.options();
    }

    /** A loop of the cell, closed after the test. */
    protected Loop open() {
        return open(options());
    }

    protected Loop open(LoopOptions o) {
        return loops.open(o);
    }

    /** Runs at least one iteration and returns. */
    protected static void spin(Loop loop) {
        loop.stop();
        loop.runForever();
    }

    /** Runs {@code r} on a new thread and waits for it: what it did happens-before what follows. */
    protected static void onAnotherThread(Runnable r) {
        Thread t = new Thread(r);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
