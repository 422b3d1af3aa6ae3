package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.LoopClock;
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
}
