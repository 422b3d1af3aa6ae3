package dev.loop.epoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.testkit.Fds;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Wake-ups cost at most one eventfd write per sleep, however many callbacks other threads submit.
 *
 * <p>The writes are counted by the kernel: Netty never reads its wake-up eventfd, so the counter
 * in {@code /proc/self/fdinfo} is the number of writes. What the engine <em>asks</em> for is
 * bounded by polls, not sleeps: it publishes "about to sleep" before its last look at the inbox,
 * and a submitter that wins the wake-up for that publication has asked for nothing wasted when
 * the last look then finds its callback and the loop polls without blocking; Netty writes the
 * eventfd only while its {@code run()} may block, so such a request costs no write.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EpollWakeupTest {
    private static final int CALLBACKS = 1_000_000;
    /** The producer pauses after each burst, so the loop runs dry and sleeps many times. */
    private static final int BURST = 1_000;
    private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

    @Test
    void aMillionForeignCallbacksCostAtMostOneEventfdWritePerSleep() throws Exception {
        List<Integer> before = Fds.eventFds();
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(CountingEpollProvider.NAME))) {
            EpollDriver io = CountingEpollProvider.last;
            List<Integer> mine = new ArrayList<>(Fds.eventFds());
            mine.removeAll(before);
            assertEquals(1, mine.size(), "the loop should have opened exactly one eventfd: " + mine);
            int eventFd = mine.get(0);
            long writesBefore = Fds.eventFdCount(eventFd);

            int[] ran = {0};
            Runnable count = () -> ran[0]++; // one instance: the storm measures wake-ups, not allocation
            Promise<Void> done = loop.newPromise();
            Thread producer = new Thread(() -> {
                for (int i = 0; i < CALLBACKS; i++) {
                    loop.callSoon(count);
                    if (i % BURST == BURST - 1) {
                        LockSupport.parkNanos(PAUSE_NANOS);
                    }
                }
                loop.callSoon(() -> done.complete(null));
            }, "storm");
            producer.start();
            loop.runUntilComplete(done);
            producer.join();

            long writes = Fds.eventFdCount(eventFd) - writesBefore;
            long sleeps = io.sleeps();
            long asked = io.wakeupCalls();
            long polls = io.polls();
            System.out.printf("wake-up storm: %d callbacks, %d polls, %d sleeps, %d wake-ups asked, %d eventfd writes%n",
                    CALLBACKS, polls, sleeps, asked, writes);
            assertEquals(CALLBACKS, ran[0]);
            assertTrue(sleeps > 0 && writes > 0, "the storm should have let the loop sleep and be woken");
            assertTrue(writes <= sleeps, "eventfd writes " + writes + " > sleeps " + sleeps);
            assertTrue(asked <= polls, "wake-ups asked " + asked + " > polls " + polls);
        }
    }
}
