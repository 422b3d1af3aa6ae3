package dev.loop.testkit;

import static dev.loop.testkit.Runs.spin;
import static dev.loop.testkit.Runs.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.net.Watch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Watching what the program opened itself (asyncio's {@code add_reader}/{@code add_writer}) on
 * every backend with sockets x timer strategy. Each test watches the two ends of a JDK pipe: as
 * {@link SelectableChannel}s where the backend watches those, else by descriptor (found in
 * {@code /proc/self/fd}, Linux only), and checks that the kind the backend does not watch is
 * refused naming it.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#watches")
public class WatchContract {
    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    private final List<Pipe> pipes = new ArrayList<>();

    @AfterEach
    void closePipes() throws IOException {
        for (Pipe p : pipes) {
            p.source().close();
            p.sink().close();
        }
    }

    /** The two ends of a pipe, watched by one loop. */
    record Watched(Pipe pipe, Watch source, Watch sink, int sourceFd) {
        void write(int bytes) throws IOException {
            assertEquals(bytes, pipe.sink().write(ByteBuffer.allocate(bytes)));
        }

        int drain() throws IOException {
            ByteBuffer b = ByteBuffer.allocate(64 * 1024);
            int total = 0;
            int n;
            while ((n = pipe.source().read(b.clear())) > 0) {
                total += n;
            }
            return total;
        }
    }

    Loop open() {
        return loops.open(cell.options());
    }

    Watched watchPipe(Loop loop) throws IOException {
        Set<Integer> before = openFds();
        Pipe pipe = Pipe.open();
        pipes.add(pipe);
        pipe.source().configureBlocking(false);
        pipe.sink().configureBlocking(false);
        try {
            return new Watched(pipe, Watch.channel(loop, pipe.source()), Watch.channel(loop, pipe.sink()), -1);
        } catch (UnsupportedOperationException noChannels) {
            assertTrue(noChannels.getMessage().contains(cell.backend()), noChannels.getMessage());
        }
        Set<Integer> created = openFds();
        created.removeAll(before);
        Assumptions.assumeTrue(created.size() == 2,
                "the pipe's two descriptors cannot be told apart from others opened meanwhile: " + created);
        int readEnd = -1;
        int writeEnd = -1;
        for (int fd : created) {
            if (writeOnly(fd)) {
                writeEnd = fd;
            } else {
                readEnd = fd;
            }
        }
        return new Watched(pipe, Watch.fd(loop, readEnd), Watch.fd(loop, writeEnd), readEnd);
    }

    /** The pipe descriptors open in this process (Linux: {@code /proc/self/fd}). */
    static Set<Integer> openFds() throws IOException {
        Path fds = Path.of("/proc/self/fd");
        Assumptions.assumeTrue(Files.isDirectory(fds), "no /proc/self/fd to find a pipe's descriptors in");
        Set<Integer> all = new HashSet<>();
        List<Path> listed;
        try (Stream<Path> s = Files.list(fds)) {
            listed = s.toList();
        }
        for (Path p : listed) {
            try {
                if (Files.readSymbolicLink(p).toString().startsWith("pipe:")) {
                    all.add(Integer.parseInt(p.getFileName().toString()));
                }
            } catch (IOException closedMeanwhile) {
                // the listing's own descriptor, or one closed since: not a pipe of ours
            }
        }
        return all;
    }

    private static boolean writeOnly(int fd) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (line.startsWith("flags:")) {
                return (Integer.parseInt(line.substring(6).trim(), 8) & 3) == 1; // O_WRONLY
            }
        }
        throw new AssertionError("no flags for fd " + fd);
    }

    @Test
    void aReaderIsCalledWhileDataIsUnreadAndNotAfter() throws Exception {
        Loop loop = open();
        Watched w = watchPipe(loop);
        AtomicInteger calls = new AtomicInteger();
        w.source().onReadable(calls::incrementAndGet);
        spin(loop, 3);
        assertEquals(0, calls.get(), "nothing to read: not called");
        w.write(10);
        until(loop, () -> calls.get() >= 3, "level-triggered: called again while the data stays unread");
        assertEquals(10, w.drain());
        spin(loop, 1); // a readiness polled before the drain may still be delivered once
        int settled = calls.get();
        spin(loop, 3);
        assertEquals(settled, calls.get(), "drained: no more calls");
    }

    @Test
    void aReaderThatDrainsGetsEveryByteInOrder() throws Exception {
        Loop loop = open();
        Watched w = watchPipe(loop);
        ByteBuffer got = ByteBuffer.allocate(3000);
        w.source().onReadable(() -> {
            try {
                w.pipe().source().read(got);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        for (int i = 0; i < 3; i++) {
            byte[] chunk = new byte[1000];
            java.util.Arrays.fill(chunk, (byte) i);
            w.pipe().sink().write(ByteBuffer.wrap(chunk));
        }
        until(loop, () -> !got.hasRemaining(), "3000 bytes read");
        for (int i = 0; i < 3000; i++) {
            assertEquals(i / 1000, got.get(i), "byte " + i);
        }
    }

    @Test
    void aWriterIsCalledWhileThereIsRoomAndStopsWhenRemoved() throws Exception {
        Loop loop = open();
        Watched w = watchPipe(loop);
        AtomicInteger calls = new AtomicInteger();
        w.sink().onWritable(calls::incrementAndGet);
        until(loop, () -> calls.get() >= 2, "an empty pipe is writable");
        w.sink().onWritable(null);
        spin(loop, 1);
        int settled = calls.get();
        spin(loop, 3);
        assertEquals(settled, calls.get(), "removed: no more calls");
        // a full pipe is not writable: the writer is not called until the reader makes room
        while (w.pipe().sink().write(ByteBuffer.allocate(64 * 1024)) > 0) {
            // fill it
        }
        AtomicInteger whenFull = new AtomicInteger();
        w.sink().onWritable(whenFull::incrementAndGet);
        spin(loop, 3);
        assertEquals(0, whenFull.get(), "a full pipe is not writable");
        w.drain();
        until(loop, () -> whenFull.get() > 0, "room again: called");
    }

    @Test
    void closingAWatchStopsItAndLeavesTheChannelOpen() throws Exception {
        Loop loop = open();
        Watched w = watchPipe(loop);
        AtomicInteger calls = new AtomicInteger();
        w.source().onReadable(calls::incrementAndGet);
        w.write(1);
        until(loop, () -> calls.get() > 0, "called");
        w.source().close();
        w.source().close(); // idempotent
        assertFalse(w.source().isOpen());
        spin(loop, 1);
        int settled = calls.get();
        spin(loop, 3);
        assertEquals(settled, calls.get());
        assertTrue(w.pipe().source().isOpen(), "the channel is the program's: still open");
        assertEquals(1, w.drain());
        assertThrows(IllegalStateException.class, () -> w.source().onReadable(calls::incrementAndGet));
    }

    @Test
    void anExceptionFromACallbackGoesToTheExceptionHandler() throws Exception {
        Loop loop = open();
        Watched w = watchPipe(loop);
        List<String> reported = new ArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> {
            reported.add(message + ": " + error.getMessage());
        });
        w.source().onReadable(() -> {
            w.source().onReadable(null);
            throw new IllegalStateException("boom");
        });
        w.write(1);
        until(loop, () -> !reported.isEmpty(), "the exception was reported");
        assertTrue(reported.get(0).contains("boom"), reported.toString());
        assertTrue(w.source().isOpen(), "a failing callback does not end the watch");
    }

    @Test
    void closingTheLoopStopsItsWatchesAndLeavesTheChannelsOpen() throws Exception {
        Loop loop = open();
        Watched w = watchPipe(loop);
        w.source().onReadable(() -> { });
        w.sink().onWritable(() -> { });
        spin(loop, 2);
        loop.close();
        assertFalse(w.source().isOpen());
        assertFalse(w.sink().isOpen());
        assertTrue(w.pipe().source().isOpen() && w.pipe().sink().isOpen());
        w.write(1);
        assertEquals(1, w.drain(), "the pipe still works");
    }

    @Test
    void whatABackendCannotWatchIsRefusedNamingIt() throws Exception {
        Loop loop = open();
        Pipe pipe = Pipe.open();
        pipes.add(pipe);
        // a blocking channel cannot be watched anywhere: refused, or unsupported by the backend
        RuntimeException blocking = assertThrows(RuntimeException.class, () -> Watch.channel(loop, pipe.source()));
        if (blocking instanceof UnsupportedOperationException u) {
            assertTrue(u.getMessage().contains(cell.backend()), u.getMessage());
        } else {
            assertInstanceOf(IllegalArgumentException.class, blocking);
            assertTrue(blocking.getMessage().contains("blocking"), blocking.getMessage());
        }
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> Watch.fd(loop, -1));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        Watched w = watchPipe(loop);
        if (w.sourceFd() < 0) {
            IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                    () -> Watch.channel(loop, w.pipe().source()));
            assertTrue(twice.getMessage().contains("already"), twice.getMessage());
            assertThrows(IllegalArgumentException.class, () -> w.sink().onReadable(() -> { }), "a pipe's sink is not read");
            assertThrows(IllegalArgumentException.class, () -> w.source().onWritable(() -> { }),
                    "a pipe's source is not written");
        } else {
            IOException twice = assertThrows(IOException.class, () -> Watch.fd(loop, w.sourceFd()));
            assertTrue(twice.getMessage().contains(Integer.toString(w.sourceFd())), twice.getMessage());
        }
    }
}
