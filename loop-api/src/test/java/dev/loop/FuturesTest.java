package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How a task follows a future of another loop ({@link Futures#marshal}), white-box. */
class FuturesTest {

    private static Loop open() {
        return Loops.open(LoopOptions.defaults().withBackend("park"));
    }

    /**
     * The hang behind an intermittent failure of the task suite: a future of another loop
     * completed between the task's isDone check and its registration, when that loop had already
     * run the future's callbacks and returned from its runUntilComplete. The relay was a callback
     * on that loop and never ran. Here the window is held open: the future is already handed to a
     * loop that will not run again when it is marshalled.
     */
    @Test
    void marshallingAFutureWhoseLoopNoLongerRunsDoesNotDependOnThatLoop() {
        try (Loop other = open(); Loop loop = open()) {
            Promise<String> foreign = other.newPromise();
            foreign.onDone(f -> other.stop()); // as runUntilComplete(foreign) registers
            foreign.complete("done");          // its callbacks now wait for a loop that never runs again
            LoopFuture<String> marshalled = Futures.marshal(foreign, loop);
            assertTrue(marshalled.isDone(), "the outcome waits for the other loop: " + marshalled);
            assertEquals("done", marshalled.result());
            assertSame(loop, marshalled.loop());
        }
    }
}
