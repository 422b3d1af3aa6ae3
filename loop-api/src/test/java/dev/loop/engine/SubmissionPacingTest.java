package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.testing.OtherThread;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * In a stream of submissions from other threads (the previous iteration ran at least two, and
 * nothing else is ready), phase 1 counts the inbox at most once per interval; a lone submission,
 * the first iteration of a stream and a loop with callbacks ready never wait, and waiting keeps the
 * order. The iterations are driven one by one from this thread, which does not own the loop, so
 * every callSoon goes through the inbox as another thread's would. The interval is stretched to
 * {@value #INTERVAL_MS} ms so that the iterations of a test always fall inside it.
 */
class SubmissionPacingTest {
    private static final long INTERVAL_MS = 200;
    private final Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"));
    private final Engine engine = Engine.of(loop);
    private final List<Integer> ran = new ArrayList<>();

    SubmissionPacingTest() {
        engine.spaceStreamLooks(TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS));
    }

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

    private static List<Integer> upTo(int n) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(i);
        }
        return out;
    }

    @Test
    void loneSubmissionsNeverWait() {
        for (int i = 0; i < 50; i++) {
            submit(i, 1);
            engine.runOnce();
        }
        assertEquals(0, engine.submissionPaces());
        assertEquals(upTo(50), ran);
    }

    @Test
    void theFirstTwoIterationsOfAStreamDoNotWaitAndTheThirdWaitsOutTheInterval() {
        long begun = System.nanoTime();
        submit(0, 10);
        engine.runOnce();          // ran 10: the next iteration is in a stream
        submit(10, 10);
        engine.runOnce();          // in a stream, but no count in a stream yet: counts at once
        assertEquals(0, engine.submissionPaces());
        assertTrue(System.nanoTime() - begun < TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS),
                "two iterations that do not wait fit in the interval");
        submit(20, 10);
        engine.runOnce();          // the previous count in a stream was just now: wait
        long took = System.nanoTime() - begun;
        assertEquals(1, engine.submissionPaces());
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS), "waited " + took + " ns");
        assertEquals(upTo(30), ran, "waiting keeps the order");
    }

    @Test
    void aStreamThatStopsStopsWaiting() {
        submit(0, 10);
        engine.runOnce();
        submit(10, 10);
        engine.runOnce();
        submit(20, 1);
        engine.runOnce();          // waits: the previous iteration ran 10
        submit(21, 1);
        engine.runOnce();          // the previous one ran 1: the stream is over
        assertEquals(1, engine.submissionPaces());
        assertEquals(upTo(22), ran);
    }

    @Test
    void callbacksAlreadyReadyAreNotKeptWaiting() {
        engine.lendTo(Thread.currentThread()); // this thread's callSoon is now the loop's own: ready work
        try {
            fromAnotherThread(0, 10);
            engine.runOnce();                  // ran 10: a stream
            fromAnotherThread(10, 10);
            engine.runOnce();                  // counted in a stream
            loop.callSoon(() -> ran.add(-1));  // ready, ahead of what comes next
            fromAnotherThread(20, 3);
            engine.runOnce();
            assertEquals(0, engine.submissionPaces(), "a loop with callbacks ready does not wait");
            List<Integer> expected = upTo(20);
            expected.addAll(List.of(-1, 20, 21, 22));
            assertEquals(expected, ran);
        } finally {
            engine.lendTo(null);
        }
    }

    private void fromAnotherThread(int from, int count) {
        OtherThread.run(() -> submit(from, count));
    }
}
