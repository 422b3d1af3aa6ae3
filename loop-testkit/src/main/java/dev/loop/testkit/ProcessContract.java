package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Task;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.process.ChildProcess;
import dev.loop.process.ProcessOptions;
import dev.loop.process.Processes;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Child processes on every backend with sockets: their pipes as the loop's connections (reads,
 * lines, writes with backpressure in both directions), exit statuses, signals, the timeout,
 * environment and directory, abandoning a child by cancelling, and no descriptor or thread left
 * behind after a thousand children. Runs real programs from coreutils and {@code sh}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#processes")
public class ProcessContract extends NetSuite {

    @TempDir
    Path dir;

    @Test
    void linesGoThroughCatAndBack() throws Exception {
        Loop loop = open();
        ChildProcess cat = Processes.exec(loop, "cat");
        Task<List<String>> t = loop.spawn(() -> {
            Async.await(cat.stdin().write(ByteBuffer.wrap("hello\nworld\n".getBytes(StandardCharsets.UTF_8))));
            cat.stdin().shutdownOutput();
            List<String> lines = new ArrayList<>();
            String line;
            while ((line = Async.await(cat.stdout().readLine(100))) != null) {
                lines.add(line);
            }
            return lines;
        });
        assertEquals(List.of("hello", "world"), await(loop, t));
        assertEquals(0, await(loop, cat.exitCode()));
        assertTrue(cat.stdout().isInputShutdown());
        cat.close();
    }

    @Test
    void aChildWhoseOutputNobodyReadsBlocksButTheLoopDoesNot() throws Exception {
        Loop loop = open();
        int size = 4 << 20;
        ChildProcess p = Processes.exec(loop, List.of("head", "-c", Integer.toString(size), "/dev/zero"), ProcessOptions.defaults());
        // Nobody reads for a while: the loop keeps turning (its timer fires on time, give or take a
        // busy machine) while the child fills the pipe and one chunk and waits in its write.
        AtomicInteger ticks = new AtomicInteger();
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (ticks.incrementAndGet() < 30) {
                loop.callLater(Duration.ofMillis(10), tick[0]);
            }
        };
        loop.callSoon(tick[0]);
        runFor(loop, Duration.ofMillis(500));
        assertTrue(ticks.get() >= 10, "the loop stalled while a child's output was unread: " + ticks.get() + " ticks");
        assertTrue(p.isAlive(), "the child finished writing 4 MiB nobody read: nothing held it back");
        assertFalse(p.exitCode().isDone());
        // now read it all, slowly enough for the credit to go back and forth many times
        Task<Long> reader = loop.spawn(() -> {
            ByteBuffer buf = ByteBuffer.allocate(8192);
            long total = 0;
            int n;
            while ((n = Async.await(p.stdout().read(buf.clear()))) >= 0) {
                total += n;
            }
            return total;
        });
        assertEquals(size, await(loop, reader));
        assertEquals(0, await(loop, p.exitCode()));
        p.close();
    }

    @Test
    void aChildThatDoesNotReadItsStdinPushesBackOnTheWriter() throws Exception {
        Loop loop = open();
        ChildProcess p = Processes.exec(loop, List.of("sleep", "30"),
                ProcessOptions.defaults().withStreams(ConnectionOptions.defaults().withWatermarks(16 * 1024, 64 * 1024)));
        Connection in = p.stdin();
        byte[] mib = new byte[1 << 20];
        in.write(ByteBuffer.wrap(mib));
        LoopFuture<Void> drained = in.drain();
        runFor(loop, Duration.ofMillis(300));
        assertFalse(in.isWritable(), "1 MiB went nowhere without filling the queue");
        assertFalse(drained.isDone(), "drain completed though the child reads nothing");
        assertTrue(in.queuedBytes() > (1 << 20) - 256 * 1024, "more left the queue than a pipe and a chunk hold: " + in.queuedBytes());
        p.kill();
        assertEquals(137, await(loop, p.exitCode()));
        Throwable failed = awaitFailure(loop, drained);
        assertInstanceOf(IOException.class, failed, "the write to a dead child's stdin must fail: " + failed);
        p.close();
    }

    @Test
    void stdoutAndStderrSeparateAndMerged() throws Exception {
        Loop loop = open();
        List<String> cmd = List.of("sh", "-c", "echo out; echo err >&2; exit 3");
        ChildProcess separate = Processes.exec(loop, cmd, ProcessOptions.defaults());
        assertEquals("out", await(loop, separate.stdout().readLine(100)));
        assertEquals("err", await(loop, separate.stderr().readLine(100)));
        assertEquals(3, await(loop, separate.exitCode()));
        separate.close();

        ChildProcess merged = Processes.exec(loop, cmd, ProcessOptions.defaults().withMergedStderr(true));
        assertNull(merged.stderr());
        assertEquals("out", await(loop, merged.stdout().readLine(100)));
        assertEquals("err", await(loop, merged.stdout().readLine(100)));
        assertNull(await(loop, merged.stdout().readLine(100)));
        assertEquals(3, await(loop, merged.exitCode()));
        merged.close();
    }

    @Test
    void terminateAndKillEndTheChildWithTheirSignals() throws Exception {
        Loop loop = open();
        ChildProcess a = Processes.exec(loop, "sleep", "30");
        ChildProcess b = Processes.exec(loop, "sleep", "30");
        a.terminate();
        b.kill();
        assertEquals(128 + 15, await(loop, a.exitCode()));
        assertEquals(128 + 9, await(loop, b.exitCode()));
        a.close();
        b.close();
    }

    @Test
    void theTimeoutTerminatesThenKillsAChildThatIgnoresTerm() throws Exception {
        Loop loop = open();
        ChildProcess polite = Processes.exec(loop, List.of("sleep", "30"),
                ProcessOptions.defaults().withTimeout(Duration.ofMillis(200)));
        Throwable t = awaitFailure(loop, polite.exitCode());
        assertInstanceOf(TimeoutException.class, t);
        assertTrue(t.getMessage().contains("sleep") && t.getMessage().contains("200 ms") && t.getMessage().contains("143"), t.getMessage());
        polite.close();

        // exec: the shell becomes sleep, which keeps the ignored TERM; only the KILL after the grace ends it
        ChildProcess stubborn = Processes.exec(loop, List.of("sh", "-c", "trap '' TERM; exec sleep 30"),
                ProcessOptions.defaults().withTimeout(Duration.ofMillis(200)).withKillGrace(Duration.ofMillis(300)));
        Throwable k = awaitFailure(loop, stubborn.exitCode());
        assertInstanceOf(TimeoutException.class, k);
        assertTrue(k.getMessage().contains("137"), "killed after the grace: " + k.getMessage());
        assertFalse(stubborn.isAlive());
        stubborn.close();
    }

    @Test
    void environmentAndWorkingDirectory() throws Exception {
        Loop loop = open();
        ChildProcess p = Processes.exec(loop, List.of("sh", "-c", "echo \"$LOOP_PROCESS_TEST\"; pwd -P; echo \"[$HOME]\""),
                ProcessOptions.defaults().withEnv("LOOP_PROCESS_TEST", "forty-two").withDirectory(dir));
        assertEquals("forty-two", await(loop, p.stdout().readLine(200)));
        assertEquals(dir.toRealPath().toString(), await(loop, p.stdout().readLine(4096)));
        assertEquals("[" + System.getenv().getOrDefault("HOME", "") + "]", await(loop, p.stdout().readLine(4096)), "inherited");
        assertEquals(0, await(loop, p.exitCode()));
        p.close();

        ChildProcess bare = Processes.exec(loop, List.of("/bin/sh", "-c", "echo \"[$HOME]\""),
                ProcessOptions.defaults().withClearEnvironment(true));
        assertEquals("[]", await(loop, bare.stdout().readLine(200)), "a cleared environment has no HOME");
        bare.close();
    }

    @Test
    void aProgramThatCannotStartIsNamed() {
        Loop loop = open();
        IOException e = assertThrows(IOException.class, () -> Processes.exec(loop, "/nonexistent/loop-no-such-program"));
        assertTrue(e.getMessage().contains("/nonexistent/loop-no-such-program"), e.getMessage());
    }

    @Test
    void startingAChildFromAnotherThreadWhileTheLoopRunsIsRefused() throws Exception {
        Loop loop = open();
        java.util.concurrent.CompletableFuture<Throwable> seen = new java.util.concurrent.CompletableFuture<>();
        loop.callSoon(() -> Thread.ofPlatform().start(() -> {
            try {
                Processes.exec(loop, "true").kill();
                seen.complete(null);
            } catch (Throwable t) {
                seen.complete(t);
            }
        }));
        awaitTrue(loop, "the other thread's attempt", seen::isDone);
        Throwable t = seen.get();
        assertInstanceOf(IllegalStateException.class, t, "a child started behind the running loop's back");
        assertTrue(t.getMessage().contains("loop thread"), t.getMessage());
    }

    @Test
    void cancellingTheTaskThatAwaitsAChildKillsIt() throws Exception {
        Loop loop = open();
        ChildProcess p = Processes.exec(loop, "sleep", "30");
        Task<Integer> waiter = loop.spawn(() -> Async.await(p.exitCode()));
        runFor(loop, Duration.ofMillis(50));
        waiter.cancel();
        awaitTrue(loop, "the abandoned child was killed", () -> !p.isAlive());
        assertTrue(p.exitCode().isCancelled());
    }

    @Test
    void aDetachedChildOutlivesTheTaskThatWasCancelled() throws Exception {
        Loop loop = open();
        ChildProcess p = Processes.exec(loop, List.of("sleep", "30"),
                ProcessOptions.defaults().withOnAbandon(ProcessOptions.Abandon.DETACH));
        try {
            Task<Integer> waiter = loop.spawn(() -> Async.await(p.exitCode()));
            runFor(loop, Duration.ofMillis(50));
            waiter.cancel();
            runFor(loop, Duration.ofMillis(200));
            assertTrue(p.isAlive(), "a detached child was killed");
            assertFalse(p.stdout().isOpen(), "our end of its pipes stays open after it was let go");
        } finally {
            p.kill();
            assertTrue(p.toHandle().onExit().get(10, TimeUnit.SECONDS) != null);
        }
    }

    @Test
    void aThousandChildrenInARowLeaveNoDescriptorOrThreadBehind() throws Exception {
        Loop loop = open();
        int n = 1_000;
        // warm up: the JDK starts its reaper thread and loads the spawn helper once per JVM
        runChildren(loop, 20);
        settle(loop);
        long fds = Fds.count();
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        long start = System.nanoTime();
        runChildren(loop, n);
        long ms = (System.nanoTime() - start) / 1_000_000;
        settle(loop);
        long fdsAfter = Fds.count();
        int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        if (fds >= 0 && fdsAfter >= 0) {
            assertTrue(fdsAfter <= fds, "descriptors leaked after " + n + " children: " + fds + " before, " + fdsAfter + " after");
        }
        // the JDK's process reaper pool may keep a thread or two between children
        assertTrue(threadsAfter <= threads + 2, "threads leaked after " + n + " children: " + threads + " before, " + threadsAfter + " after");
        assertTrue(ms < 90_000, n + " children took " + ms + " ms");
    }

    @Test
    void childrenAwaitedOnlyForTheirExitStartNoPumpAndLeaveNothingOpen() throws Exception {
        Loop loop = open();
        runChildren(loop, 5);
        settle(loop);
        long fds = Fds.count();
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        Task<Integer> t = loop.spawn(() -> {
            for (int i = 0; i < 200; i++) {
                ChildProcess p = Processes.exec(loop, "/bin/echo", "unread");
                if (Async.await(p.exitCode()) != 0) {
                    throw new AssertionError("echo failed");
                }
                if (pumps() != 0) {
                    throw new AssertionError("a pump started for output nobody read");
                }
                p.close();
            }
            return 200;
        });
        Waits.await(loop, t, Duration.ofSeconds(60));
        settle(loop);
        if (fds >= 0) {
            assertTrue(Fds.count() <= fds, "descriptors leaked: " + fds + " before, " + Fds.count() + " after");
        }
        assertTrue(ManagementFactory.getThreadMXBean().getThreadCount() <= threads + 2, "threads leaked");
    }

    /** Runs {@code n} children of {@code /bin/echo} one after another, each read to its end and awaited. */
    private static void runChildren(Loop loop, int n) {
        Task<Integer> t = loop.spawn(() -> {
            for (int i = 0; i < n; i++) {
                ChildProcess p = Processes.exec(loop, "/bin/echo", Integer.toString(i));
                String line = Async.await(p.stdout().readLine(100));
                if (!Integer.toString(i).equals(line)) {
                    throw new AssertionError("child " + i + " said " + line);
                }
                if (Async.await(p.stdout().readLine(100)) != null) {
                    throw new AssertionError("child " + i + " said more");
                }
                if (Async.await(p.stderr().readLine(100)) != null) {
                    throw new AssertionError("child " + i + " wrote to stderr");
                }
                int code = Async.await(p.exitCode());
                if (code != 0) {
                    throw new AssertionError("child " + i + " exited with " + code);
                }
                p.close();
            }
            return n;
        });
        Waits.await(loop, t, Duration.ofSeconds(100));
    }

    /** Lets pump threads that saw their end of stream finish, and the loop run the closes. */
    private static void settle(Loop loop) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline && pumps() > 0) {
            runFor(loop, Duration.ofMillis(10));
        }
        runFor(loop, Duration.ofMillis(20));
    }

    private static long pumps() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("loop-std")).count();
    }
}
