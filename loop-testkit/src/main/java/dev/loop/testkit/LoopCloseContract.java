package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Closing: what was scheduled still runs, pending timers are cancelled, and every submission after
 * (or racing with) close is either run or refused, from any thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopCloseContract extends LoopSuite {

    @Test
    void closeRunsWhatWasScheduledAndCancelsPendingTimers() {
        Loop loop = open();
        AtomicInteger ran = new AtomicInteger();
        loop.callSoon(ran::incrementAndGet);
        loop.callSoon(() -> loop.callSoon(ran::incrementAndGet));
        TimerHandle pending = loop.callLater(Duration.ofHours(1), ran::incrementAndGet);
        loop.close();
        assertEquals(2, ran.get());
        assertTrue(pending.isCancelled());
        assertTrue(loop.isClosed());
    }

    @Test
    void anyCallOnAClosedLoopSaysItIsClosed() {
        Loop loop = open();
        loop.close();
        loop.close(); // idempotent
        String m1 = assertThrows(RuntimeException.class, () -> loop.callSoon(() -> { })).getMessage();
        String m2 = assertThrows(RuntimeException.class, () -> loop.callLater(Duration.ZERO, () -> { })).getMessage();
        String m3 = assertThrows(IllegalStateException.class, loop::runForever).getMessage();
        for (String m : List.of(m1, m2, m3)) {
            assertTrue(m.contains("closed"), m);
        }
    }

    @Test
    void everySubmissionAfterCloseIsRefusedWithTheSameExceptionFromAnyThread() throws Exception {
        Loop loop = open();
        loop.close();
        List<Runnable> submissions = List.of(
                () -> loop.callSoon(() -> { }),
                () -> loop.execute(() -> { }),
                () -> loop.callLater(Duration.ZERO, () -> { }),
                () -> loop.callAt(loop.time(), () -> { }),
                () -> loop.spawn(() -> null),
                () -> loop.offload(() -> null));
        for (Runnable submit : submissions) {
            for (boolean elsewhere : new boolean[] {false, true}) {
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Runnable attempt = () -> {
                    try {
                        submit.run();
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                };
                if (elsewhere) {
                    onAnotherThread(attempt);
                } else {
                    attempt.run();
                }
                assertInstanceOf(java.util.concurrent.RejectedExecutionException.class, thrown.get(),
                        "submission " + submissions.indexOf(submit) + (elsewhere ? " from another thread" : ""));
                assertTrue(thrown.get().getMessage().contains("closed"), thrown.get().getMessage());
            }
        }
    }

    @Test
    void completingAFutureAfterItsLoopClosedTakesEffectWithoutThrowingAtTheCompleter() throws Exception {
        Loop loop = open();
        Promise<String> p = loop.newPromise();
        Promise<String> q = loop.newPromise();
        AtomicInteger callbacks = new AtomicInteger();
        p.onDone(f -> callbacks.incrementAndGet());
        q.onDone(f -> callbacks.incrementAndGet());
        loop.close();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        onAnotherThread(() -> {
            try {
                p.complete("late");
                assertTrue(q.cancel());
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        assertNull(thrown.get(), () -> "the completer got " + thrown.get());
        assertEquals("late", p.result());
        assertTrue(q.isCancelled());
        assertEquals(0, callbacks.get(), "callbacks of a closed loop never run");
    }

    @Test
    void closeOnARunningLoopThrowsAndSaysWhatToDo() {
        Loop loop = open();
        AtomicReference<Throwable> error = new AtomicReference<>();
        loop.callSoon(() -> {
            try {
                loop.close();
            } catch (Throwable t) {
                error.set(t);
            }
            loop.stop();
        });
        loop.runForever();
        assertNotNull(error.get());
        assertTrue(error.get() instanceof IllegalStateException);
        assertTrue(error.get().getMessage().contains("running"), error.get().getMessage());
        assertFalse(loop.isClosed());
    }

    @Test
    void submissionsRacingWithCloseAreEitherRunOrRefused() throws Exception {
        for (int round = 0; round < 30; round++) {
            Loop loop = open();
            int producers = 2;
            AtomicLong accepted = new AtomicLong();
            AtomicLong ran = new AtomicLong();
            List<TimerHandle> timers = new CopyOnWriteArrayList<>();
            AtomicInteger timersRan = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                boolean withTimers = p == 0;
                Thread producer = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; ; i++) {
                        try {
                            if (withTimers && i % 8 == 0) {
                                timers.add(loop.callLater(Duration.ZERO, timersRan::incrementAndGet));
                            } else {
                                loop.callSoon(ran::incrementAndGet); // a new object each time
                                accepted.incrementAndGet();
                            }
                        } catch (RuntimeException refused) {
                            assertTrue(refused.getMessage().contains("closed"), refused.getMessage());
                            return;
                        }
                    }
                });
                producer.start();
                threads.add(producer);
            }
            if (round % 2 == 1) {
                Thread runner = new Thread(loop::runForever); // close while it runs: stop first
                runner.start();
                go.countDown();
                Thread.sleep(1);
                loop.stop();
                runner.join(10_000);
            } else {
                go.countDown();
                Thread.sleep(1);
            }
            loop.close();
            for (Thread t : threads) {
                t.join(10_000);
                assertFalse(t.isAlive());
            }
            assertEquals(accepted.get(), ran.get(), "round " + round + ": accepted callbacks were lost at close");
            long settled = timers.stream().filter(h -> h.isCancelled()).count() + timersRan.get();
            assertEquals(timers.size(), settled, "round " + round + ": every accepted timer either ran or was cancelled");
        }
    }
}
