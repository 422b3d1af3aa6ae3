package dev.loop.select;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On select an interrupt alone ends a loop blocked in {@code Selector.select} (the JDK's selector
 * is interruptible); the conformance suite only asks that a loop stops at its next wake-up.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class SelectInterruptTest {

    @Test
    void anInterruptAloneEndsABlockedSelect() throws Exception {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"))) {
            CountDownLatch running = new CountDownLatch(1);
            loop.callSoon(running::countDown);
            AtomicBoolean interruptedAfter = new AtomicBoolean();
            Thread t = new Thread(() -> {
                loop.runForever();
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            }, "select-loop");
            t.start();
            assertTrue(running.await(10, TimeUnit.SECONDS));
            while (t.getState() != Thread.State.RUNNABLE || !Arrays.toString(t.getStackTrace()).contains("select")) {
                Thread.onSpinWait(); // until it is inside the selector with nothing to do
            }
            t.interrupt();
            t.join(10_000);
            assertFalse(t.isAlive(), "the interrupt did not end the select: " + Arrays.toString(t.getStackTrace()));
            assertTrue(interruptedAfter.get(), "runForever leaves the interrupt status set");
        }
    }
}
