package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Phase 1 pauses only for a stream of submissions from other threads: the previous iteration ran
 * at least two, fewer than a batch wait now, and nothing else is ready. A lone submission, the
 * first of a burst and a full batch never wait; and a pause keeps the order. The iterations are
 * driven one by one from this thread, which does not own the loop, so every callSoon goes through
 * the inbox as another thread's would.
 */
class SubmissionPacingTest {
    private final Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"));
    private final Engine engine = Engine.of(loop);
    private final List<Integer> ran = new ArrayList<>();

    @AfterEach
    void close() {
        loop.close();
    }

    private void submit(int from, int count) {
        for (int i = from; i < from + count; i++) {
            int n = i;
            loop.callSoon(() -> ran.add(n));
        }
    }

    @Test
    void loneSubmissionsAndTheFirstOfABurstNeverWait() {
        for (int i = 0; i < 50; i++) {
            submit(i, 1);
            engine.runOnce();
        }
        submit(50, 10); // the previous iteration ran one: not a stream yet
        engine.runOnce();
        assertEquals(0, engine.submissionPaces());
        assertEquals(60, ran.size());
    }

    @Test
    void aStreamPausesOnceWhenFewWaitAndKeepsItsOrder() {
        submit(0, 10);
        engine.runOnce();      // ran 10: the next iteration is in a stream
        submit(10, 5);
        long begun = System.nanoTime();
        engine.runOnce();      // 5 wait, fewer than a batch: pause, then count
        long took = System.nanoTime() - begun;
        assertEquals(1, engine.submissionPaces());
        assertTrue(took >= Submissions.PACE_NANOS, "paused " + took + " ns");
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            expected.add(i);
        }
        assertEquals(expected, ran);
    }

    @Test
    void aFullBatchIsTakenAtOnce() {
        submit(0, 10);
        engine.runOnce();
        submit(10, 64);
        engine.runOnce();
        assertEquals(0, engine.submissionPaces());
        assertEquals(74, ran.size());
    }

    @Test
    void callbacksAlreadyReadyAreNotKeptWaiting() throws InterruptedException {
        engine.lendTo(Thread.currentThread()); // this thread's callSoon is now the loop's own: ready work
        try {
            fromAnotherThread(0, 10);
            engine.runOnce();                  // ran 10: a stream
            loop.callSoon(() -> ran.add(-1));  // ready, ahead of what comes next
            fromAnotherThread(10, 3);
            engine.runOnce();
            assertEquals(0, engine.submissionPaces(), "a loop with callbacks ready does not pause");
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 10, 11, 12), ran);
        } finally {
            engine.lendTo(null);
        }
    }

    private void fromAnotherThread(int from, int count) throws InterruptedException {
        Thread t = new Thread(() -> submit(from, count));
        t.start();
        t.join();
    }
}
