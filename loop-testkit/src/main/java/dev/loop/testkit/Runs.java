package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.TimerHandle;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Running a loop until something happens, with a watchdog: the suites' waits, in one place. */
final class Runs {
    /** The most any single wait in the suites may take before it counts as a hang. */
    static final Duration PATIENCE = Duration.ofSeconds(8);

    private Runs() {
    }

    /** Runs the loop until {@code f} is done, failing the test after {@link #PATIENCE}. */
    static <T> T await(Loop loop, LoopFuture<T> f) {
        TimerHandle watchdog = loop.callLater(PATIENCE, loop::stop);
        try {
            return loop.runUntilComplete(f);
        } finally {
            watchdog.cancel();
        }
    }

    /** Runs the loop until {@code f} is done and returns its exception. */
    static Throwable awaitFailure(Loop loop, LoopFuture<?> f) {
        TimerHandle watchdog = loop.callLater(PATIENCE, loop::stop);
        try {
            loop.runUntilComplete(f);
        } catch (Throwable expected) {
            return expected;
        } finally {
            watchdog.cancel();
        }
        throw new AssertionError("expected " + f + " to fail");
    }

    /** Runs the loop until {@code condition} holds, checking it once per iteration. */
    static void until(Loop loop, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            spin(loop, 1);
        }
    }

    /** Runs {@code iterations} iterations of the loop. */
    static void spin(Loop loop, int iterations) {
        for (int i = 0; i < iterations; i++) {
            loop.stop();
            loop.runForever();
        }
    }
}
