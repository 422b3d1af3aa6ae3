package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Loops;
import dev.loop.Promise;
import dev.loop.Signals;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Signals reach loops on their own threads, handlers come and go, and the JVM's handler comes back
 * after the last one. Signals are process-wide: these tests use {@code USR1} (nobody else in the
 * test JVM handles it) and raise it to this process with {@code kill}, as an operator would;
 * {@code TERM}, whose JVM handler exits, is tested in a child JVM ({@link SignalsChild}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignalsTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    @Test
    void aHandlerRunsOnTheLoopThreadForASignalFromKill() throws Exception {
        try (Loop loop = Loops.open()) {
            Promise<Thread> ran = loop.newPromise();
            Signals.SignalHandle h = Signals.on(loop, "SIGUSR1", () -> ran.tryComplete(Thread.currentThread()));
            try {
                assertEquals("USR1", h.signal());
                kill("USR1", ProcessHandle.current().pid());
                Thread loopThread = Thread.currentThread(); // runUntilComplete runs the loop here
                assertSame(loopThread, run(loop, ran), "the handler ran on the JVM's signal thread, not the loop's");
            } finally {
                h.remove();
            }
        }
    }

    @Test
    void aRemovedHandlerDoesNotRunAndTheLastRemovalRestoresTheJvmHandler() throws Exception {
        SignalHandler before = current("USR1");
        try (Loop loop = Loops.open()) {
            List<String> seen = new CopyOnWriteArrayList<>();
            Promise<Void> second = loop.newPromise();
            Signals.SignalHandle a = Signals.on(loop, "USR1", () -> seen.add("a"));
            Signals.SignalHandle b = Signals.on(loop, "USR1", () -> {
                seen.add("b");
                second.tryComplete(null);
            });
            assertFalse(current("USR1") == before, "our dispatcher is installed while handlers exist");
            a.remove();
            a.remove(); // idempotent
            Signal.raise(new Signal("USR1"));
            run(loop, second);
            assertEquals(List.of("b"), seen);
            b.remove();
            assertSame(before, current("USR1"), "the JVM's handler is back after the last removal");
        }
    }

    @Test
    void twoLoopsOnTwoThreadsBothHearOneSignal() throws Exception {
        Loop one = Loops.open();
        Loop two = Loops.open();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        CountDownLatch both = new CountDownLatch(2);
        Signals.SignalHandle h1 = Signals.on(one, "USR1", () -> {
            threads.add(Thread.currentThread());
            both.countDown();
        });
        Signals.SignalHandle h2 = Signals.on(two, "USR1", () -> {
            threads.add(Thread.currentThread());
            both.countDown();
        });
        Thread t1 = new Thread(one::runForever, "loop-one");
        Thread t2 = new Thread(two::runForever, "loop-two");
        t1.start();
        t2.start();
        try {
            Signal.raise(new Signal("USR1"));
            assertTrue(both.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS), "both loops heard it: " + threads);
            assertEquals(List.of("loop-one", "loop-two"), threads.stream().map(Thread::getName).sorted().toList());
        } finally {
            h1.remove();
            h2.remove();
            one.stop();
            two.stop();
            t1.join();
            t2.join();
            one.close();
            two.close();
        }
    }

    @Test
    void aHandlerThatThrowsReachesTheLoopsExceptionHandlerAndTheOthersStillRun() throws Exception {
        try (Loop loop = Loops.open()) {
            List<Throwable> reported = new CopyOnWriteArrayList<>();
            loop.setExceptionHandler((l, message, error, source) -> reported.add(error));
            Promise<Void> other = loop.newPromise();
            Signals.SignalHandle bad = Signals.on(loop, "USR1", () -> {
                throw new IllegalStateException("handler bug");
            });
            Signals.SignalHandle good = Signals.on(loop, "USR1", () -> other.tryComplete(null));
            try {
                Signal.raise(new Signal("USR1"));
                run(loop, other);
                assertEquals(1, reported.size(), reported.toString());
                assertEquals("handler bug", reported.get(0).getMessage());
            } finally {
                bad.remove();
                good.remove();
            }
        }
    }

    @Test
    void unsupportedSignalsAreRefusedByNameAndWhy() {
        try (Loop loop = Loops.open()) {
            IllegalArgumentException quit = assertThrows(IllegalArgumentException.class, () -> Signals.on(loop, "QUIT", () -> { }));
            assertTrue(quit.getMessage().contains("SIGQUIT") && quit.getMessage().contains("thread dump"), quit.getMessage());
            IllegalArgumentException kill = assertThrows(IllegalArgumentException.class, () -> Signals.on(loop, "SIGKILL", () -> { }));
            assertTrue(kill.getMessage().contains("SIGKILL") && kill.getMessage().contains("catch"), kill.getMessage());
            IllegalArgumentException odd = assertThrows(IllegalArgumentException.class, () -> Signals.on(loop, "WINCH", () -> { }));
            assertTrue(odd.getMessage().contains("SIGWINCH") && odd.getMessage().contains("TERM"), odd.getMessage());
        }
    }

    @Test
    void termReachesTheLoopThenTheJvmHandlerIsBackAndRunsTheShutdownHooks() throws Exception {
        Process child = SignalsChild.start("await");
        String ready = SignalsChild.readLine(child);
        assertEquals("ready", ready, "the child did not start");
        kill("TERM", child.pid());
        assertTrue(child.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the child did not exit");
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(out.contains("TERM on loop-main"), out + err);
        assertTrue(out.contains("shutdown hook ran"), "the second TERM went to the JVM's handler: " + out + err);
        assertEquals(128 + 15, child.exitValue(), "exit as the JVM's TERM handler exits: " + out + err);
    }

    @Test
    void aLoopClosedWithHandlersStillAddedDoesNotSwallowTerm() throws Exception {
        Process child = SignalsChild.start("closed");
        assertEquals("ready", SignalsChild.readLine(child), "the child did not start");
        kill("TERM", child.pid());
        assertTrue(child.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS), "TERM was swallowed by a closed loop's handler");
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(out.contains("shutdown hook ran"), out);
        assertEquals(128 + 15, child.exitValue(), out);
    }

    // ------------------------------------------------------------------ helpers

    private static <T> T run(Loop loop, LoopFuture<T> f) {
        var watchdog = loop.callLater(PATIENCE, loop::stop);
        try {
            return loop.runUntilComplete(f);
        } finally {
            watchdog.cancel();
        }
    }

    /** The handler the JVM has for {@code name} now (swapped out and back for a moment). */
    private static SignalHandler current(String name) {
        Signal s = new Signal(name);
        SignalHandler h = Signal.handle(s, SignalHandler.SIG_IGN);
        Signal.handle(s, h);
        return h;
    }

    static void kill(String signal, long pid) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertEquals(0, k.waitFor(), "kill -" + signal + " " + pid);
    }
}
