package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.LoopClock;
import dev.loop.testing.OtherThread;
import dev.loop.testing.ParkingDriver;
import dev.loop.testing.ParkingLoopProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the engine asks of its backend, seen through the recording test backend. */
class EngineTest {

    private static Loop open(LoopOptions o) {
        return Loops.open(o.withBackend("park"));
    }

    @Test
    void callbacksScheduledDuringAnIterationRunAfterAZeroTimeoutPoll() {
        Loop loop = open(LoopOptions.defaults().withClock(ManualClock.create()));
        ParkingDriver io = ParkingLoopProvider.last;
        List<String> events = new ArrayList<>();
        loop.callSoon(() -> {
            events.add("first, polls so far " + io.timeouts.size());
            loop.callSoon(() -> {
                events.add("second, polls so far " + io.timeouts.size());
                loop.stop();
            });
        });
        loop.runForever();
        assertEquals(2, events.size());
        // between the two callbacks exactly one poll happened, and it did not block
        int before = Integer.parseInt(events.get(0).replaceAll("\\D+", ""));
        int after = Integer.parseInt(events.get(1).replaceAll("\\D+", ""));
        assertEquals(before + 1, after);
        assertEquals(0L, List.copyOf(io.timeouts).get(before));
        loop.close();
        assertTrue(io.closed, "close() releases the backend");
    }

    /** A clock the engine takes for real time, which moves only when the test backend "sleeps". */
    private static final class SteppedClock implements LoopClock {
        volatile long now;

        @Override
        public long nanoTime() {
            return now;
        }
    }

    @Test
    void theLoopSleepsUntilTheNextTimerAndForeverWithoutOne() {
        SteppedClock clock = new SteppedClock();
        Loop loop = open(LoopOptions.defaults().withClock(clock));
        ParkingDriver io = ParkingLoopProvider.last;
        io.sleeper = nanos -> clock.now += nanos; // a poll of t nanoseconds takes exactly t on this clock
        loop.callLater(Duration.ofMillis(20), loop::stop);
        loop.runForever();
        assertEquals(List.of(TimeUnit.MILLISECONDS.toNanos(20)), List.copyOf(io.timeouts).stream().filter(t -> t != 0).toList(),
                "one poll until the timer, and no other blocking poll: " + io.timeouts);
        assertEquals(TimeUnit.MILLISECONDS.toNanos(20), clock.now);
        loop.close();
    }

    @Test
    void aBurstOfForeignSubmissionsWakesASleepingLoopOnce() throws Exception {
        Loop loop = open(LoopOptions.defaults());
        ParkingDriver io = ParkingLoopProvider.last;
        CountDownLatch asleep = new CountDownLatch(1);
        loop.callSoon(asleep::countDown);
        Thread t = new Thread(loop::runForever);
        t.start();
        assertTrue(asleep.await(10, TimeUnit.SECONDS));
        while (t.getState() != Thread.State.WAITING) {
            Thread.onSpinWait(); // until the loop is parked in poll with nothing to do
        }
        int before = io.wakeups.get();
        CountDownLatch burstDone = new CountDownLatch(1);
        io.holdAfterWake = burstDone; // the woken loop stays out of its next sleep until the burst ends
        CountDownLatch all = new CountDownLatch(10_000);
        for (int i = 0; i < 10_000; i++) {
            loop.callSoon(all::countDown);
        }
        io.holdAfterWake = null;
        burstDone.countDown();
        assertTrue(all.await(10, TimeUnit.SECONDS));
        assertEquals(1, io.wakeups.get() - before, "a burst of 10,000 submissions to a sleeping loop wakes it once");
        loop.stop();
        t.join(10_000);
        loop.close();
    }
    /** What a poll runs: {@code submit} on a thread of its own, waited for (a submission from another thread). */
    private static Runnable fromAnotherThread(Runnable submit) {
        return () -> OtherThread.run(submit);
    }

    @Test
    void aSubmissionThatWokeTheLoopRunsInTheIterationItWoke() {
        Loop loop = open(LoopOptions.defaults());
        ParkingDriver io = ParkingLoopProvider.last;
        List<Integer> pollsSoFar = new ArrayList<>();
        loop.callSoon(() -> {
            pollsSoFar.add(io.timeouts.size());
            // nothing else is ready: the next poll sleeps, and this submission wakes it
            io.dispatchOnce = fromAnotherThread(() -> loop.callSoon(() -> {
                pollsSoFar.add(io.timeouts.size());
                loop.stop();
            }));
        });
        loop.runForever();
        assertEquals(2, pollsSoFar.size());
        assertEquals(pollsSoFar.get(0) + 1, pollsSoFar.get(1), "it ran right after the poll it woke: " + io.timeouts);
        assertTrue(List.copyOf(io.timeouts).get(pollsSoFar.get(0)) != 0, "that poll could sleep: " + io.timeouts);
        loop.close();
    }

    @Test
    void aSubmissionMadeDuringAPollThatDidNotWaitRunsInTheNextIteration() {
        Loop loop = open(LoopOptions.defaults());
        ParkingDriver io = ParkingLoopProvider.last;
        List<String> ran = new ArrayList<>();
        List<Integer> pollsSoFar = new ArrayList<>();
        loop.callSoon(() -> {
            io.dispatchOnce = fromAnotherThread(() -> loop.callSoon(() -> {
                ran.add("submitted during the poll");
                pollsSoFar.add(io.timeouts.size());
                loop.stop();
            }));
            loop.callSoon(() -> { // ready, so the next poll does not wait
                ran.add("ready before the poll");
                pollsSoFar.add(io.timeouts.size());
            });
        });
        loop.runForever();
        assertEquals(List.of("ready before the poll", "submitted during the poll"), ran);
        // the poll between them is the next iteration's: after a poll that did not wait, phase 4
        // leaves the inbox alone, and phase 1 of the next iteration finds the submission
        assertEquals(pollsSoFar.get(0) + 1, pollsSoFar.get(1), "polls: " + io.timeouts);
        assertEquals(0L, List.copyOf(io.timeouts).get(pollsSoFar.get(0) - 1), "the poll it arrived in did not wait");
        loop.close();
    }
}
