package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.TimerHandle;
import java.time.Duration;

/**
 * Running a loop until something happens, with a watchdog that stops it after a patience: the
 * network suites' one way of waiting, so that a hang fails the test instead of blocking it.
 */
final class Waits {
    private Waits() {
    }

    /** Runs the loop until {@code f} is done; after {@code patience} the loop stops and this throws. */
    static <T> T await(Loop loop, LoopFuture<T> f, Duration patience) {
        TimerHandle watchdog = loop.callLater(patience, loop::stop);
        try {
            return loop.runUntilComplete(f);
        } finally {
            watchdog.cancel();
        }
    }

    /** Runs the loop until {@code f} is done and returns its exception; fails if it succeeds. */
    static Throwable awaitFailure(Loop loop, LoopFuture<?> f, Duration patience) {
        TimerHandle watchdog = loop.callLater(patience, loop::stop);
        try {
            loop.runUntilComplete(f);
        } catch (Throwable expected) {
            return expected;
        } finally {
            watchdog.cancel();
        }
        throw new AssertionError("expected " + f + " to fail");
    }

    /** Runs the loop until {@code f} is done; true if it failed. After {@code patience} the loop stops and this throws. */
    static boolean awaitFailed(Loop loop, LoopFuture<?> f, Duration patience) {
        TimerHandle watchdog = loop.callLater(patience, loop::stop);
        try {
            loop.runUntilComplete(f);
            return false;
        } catch (Throwable failed) { // the future's own exception, checked ones too
            if (!f.isDone()) {
                throw new AssertionError("still waiting after " + patience, failed);
            }
            return true;
        } finally {
            watchdog.cancel();
        }
    }

    /** Runs {@code iterations} loop iterations. */
    static void spin(Loop loop, int iterations) {
        for (int i = 0; i < iterations; i++) {
            loop.stop();
            loop.runForever();
        }
    }
}
