package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.loop.Loop;
import dev.loop.examples.ExternalTools;
import dev.loop.net.ConnectionOptions;
import dev.loop.testkit.Cell;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client of the second loop of two while its batch is away on the data loop: the home loop
 * reads on (no change of the socket's interest per batch), only so far, and whatever arrives
 * meanwhile, an end of stream included, is answered in order once the batch is back. The data
 * loop is held by a task of the test's that waits for a latch, so the batch is away for as long
 * as the test needs, without timing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RespHandOffTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A step of a test that runs while a batch is away. */
    private interface Step {
        void run() throws Exception;
    }

    /**
     * A server of two loops and a client it serves on the second. The clients that landed on the
     * first stay open until the end, so that the choice of loop moves on; closing this closes them
     * all and the server. Each client's reads time out after {@link #WAIT} ({@link ExternalTools#connect}).
     */
    private static final class OnSecondLoop implements AutoCloseable {
        final RespServer server;
        final Loop second;
        final Socket client;
        private final List<Socket> sockets = new ArrayList<>();

        OnSecondLoop(Cell cell) throws IOException {
            server = RespProtocolTest.start(cell, 2);
            second = server.loops().get(1);
            try {
                client = connect();
            } catch (Throwable t) {
                close();
                throw t;
            }
        }

        /**
         * Which loop takes a connection is the kernel's (SO_REUSEPORT) or the acceptor's choice:
         * connect until one lands on the second.
         */
        private Socket connect() throws IOException {
            for (int i = 0; i < 64; i++) {
                long before = second.metrics().connectionsOpened();
                Socket s = ExternalTools.connect(server.address(), WAIT);
                sockets.add(s);
                s.getOutputStream().write(ascii("PING\r\n"));
                assertEquals("+PONG\r\n", RespProtocolTest.readReply(s.getInputStream())); // accepted, wherever
                if (second.metrics().connectionsOpened() > before) {
                    return s;
                }
            }
            throw new AssertionError("no connection of 64 landed on the second loop");
        }

        /**
         * Runs {@code step} while the data loop's thread is held by a task that waits for a latch,
         * so a batch handed to it stays away for as long as the step takes; then lets it go.
         */
        void whileABatchIsAway(Step step) throws Exception {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(1);
            server.dataLoop().execute(() -> {
                held.countDown();
                try {
                    release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                assertTrue(held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the data loop took the holding task");
                step.run();
            } finally {
                release.countDown();
            }
        }

        @Override
        public void close() throws IOException {
            try (server) {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }

    /** Waits until {@code loop} has read at least {@code bytes} in all; false if it has not within {@code wait}. */
    private static boolean awaitBytesIn(Loop loop, long bytes, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (loop.metrics().bytesIn() < bytes) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /** Lets {@code loop} go round: what was ready on its sockets before has been handled after. */
    private static void roundTrips(Loop loop, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            loop.execute(() -> done.complete(null));
            done.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static List<String> repliesUntilClosed(InputStream in) throws IOException {
        List<String> replies = new ArrayList<>();
        for (String r = RespProtocolTest.readReply(in); r != null; r = RespProtocolTest.readReply(in)) {
            replies.add(r);
        }
        return replies;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void commandsAndEndOfStreamSentWhileABatchIsAwayAreAllAnsweredBeforeTheClose(Cell cell) throws Exception {
        try (OnSecondLoop c = new OnSecondLoop(cell)) {
            OutputStream out = c.client.getOutputStream();
            c.whileABatchIsAway(() -> {
                long base = c.second.metrics().bytesIn();
                byte[] first = ascii("SET a 1\r\n");
                out.write(first); // parsed and handed to the data loop, which is held
                assertTrue(awaitBytesIn(c.second, base + first.length, WAIT), "the first batch arrived");
                // complete commands, then half a command, then the end of stream, all while the batch is away
                byte[] more = ascii("INCR n\r\nINCR n\r\nGET a\r\nGET par");
                out.write(more);
                c.client.shutdownOutput();
                assertTrue(awaitBytesIn(c.second, base + first.length + more.length, Duration.ofSeconds(10)),
                        "the home loop reads on while the batch is away");
                roundTrips(c.second, 3); // the end of stream, right behind those bytes, is seen too
            });
            // every complete command answered, in order; the partial one dropped; then the close
            assertEquals(List.of("+OK\r\n", ":1\r\n", ":2\r\n", "$1\r\n1\r\n"),
                    repliesUntilClosed(new BufferedInputStream(c.client.getInputStream())));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void aClientThatBlocksAndClosesBeforeItsBatchRanIsClosedAndUnblocked(Cell cell) throws Exception {
        try (OnSecondLoop c = new OnSecondLoop(cell)) {
            c.whileABatchIsAway(() -> {
                long base = c.second.metrics().bytesIn();
                byte[] pop = ascii("BLPOP q 0\r\n");
                c.client.getOutputStream().write(pop);
                assertTrue(awaitBytesIn(c.second, base + pop.length, WAIT), "the blocking command arrived");
                c.client.shutdownOutput(); // gone before the data loop even ran the command
                roundTrips(c.second, 3);
            });
            // it blocks once run; the home loop, which saw the end of stream already, closes it then
            assertEquals(-1, c.client.getInputStream().read(), "closed without a reply");
            try (Socket other = ExternalTools.connect(c.server.address(), WAIT)) {
                other.getOutputStream().write(ascii("RPUSH q x\r\nLPOP q\r\n"));
                InputStream in = new BufferedInputStream(other.getInputStream());
                assertEquals(":1\r\n", RespProtocolTest.readReply(in));
                assertEquals("$1\r\nx\r\n", RespProtocolTest.readReply(in), "nobody is left blocked to take it");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void inputThatArrivesInPiecesWhileABatchIsAwayIsAnsweredInOrder(Cell cell) throws Exception {
        try (OnSecondLoop c = new OnSecondLoop(cell)) {
            OutputStream out = c.client.getOutputStream();
            StringBuilder pipeline = new StringBuilder();
            List<String> expected = new ArrayList<>();
            for (int i = 1; i <= 300; i++) {
                // inline and multibulk, so that pieces end inside either
                pipeline.append(i % 2 == 0 ? "INCR n\r\n" : "*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n");
                expected.add(":" + i + "\r\n");
            }
            byte[] all = ascii(pipeline.toString());
            c.whileABatchIsAway(() -> {
                long read = c.second.metrics().bytesIn();
                // pieces of 97 bytes, each read on its own: every one ends in the middle of a command
                for (int at = 0; at < all.length; at += 97) {
                    int n = Math.min(97, all.length - at);
                    out.write(all, at, n);
                    read += n;
                    assertTrue(awaitBytesIn(c.second, read, Duration.ofSeconds(10)),
                            "the home loop reads on while the batch is away (" + at + " of " + all.length + ")");
                }
            });
            InputStream in = new BufferedInputStream(c.client.getInputStream());
            List<String> replies = new ArrayList<>();
            for (int i = 0; i < expected.size(); i++) {
                replies.add(RespProtocolTest.readReply(in));
            }
            assertEquals(expected, replies);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void aClientPipeliningWhileItsBatchIsAwayIsReadNoFurtherThanTheBound(Cell cell) throws Exception {
        try (OnSecondLoop c = new OnSecondLoop(cell)) {
            OutputStream out = c.client.getOutputStream();
            int commands = 256 * 1024; // 2 MiB of "INCR n\r\n"
            byte[] all = ascii("INCR n\r\n".repeat(commands));
            long bound = RespConnection.INPUT_AHEAD + ConnectionOptions.DEFAULT_READ_BUFFER_SIZE; // one read past it
            Thread writer = Thread.ofPlatform().daemon().unstarted(() -> {
                try {
                    out.write(all); // blocks once the kernel's buffers are full: nobody reads
                } catch (IOException e) {
                    // the test failed and closed the socket
                }
            });
            c.whileABatchIsAway(() -> {
                long base = c.second.metrics().bytesIn();
                out.write(ascii("INCR n\r\n"));
                assertTrue(awaitBytesIn(c.second, base + 8, WAIT), "the first batch arrived");
                writer.start();
                assertTrue(awaitBytesIn(c.second, base + 8 + RespConnection.INPUT_AHEAD, WAIT),
                        "the home loop reads on while the batch is away, up to the bound");
                for (int i = 0; i < 20; i++) {
                    roundTrips(c.second, 1);
                    Thread.sleep(10); // the writer goes on pushing: the loop must not read it
                    long held = c.second.metrics().bytesIn() - base - 8;
                    assertTrue(held <= bound, "read " + held + " bytes ahead while the batch is away, bound " + bound);
                }
            });
            InputStream in = new BufferedInputStream(c.client.getInputStream());
            for (int i = 1; i <= commands + 1; i++) {
                String r = RespProtocolTest.readReply(in);
                if (!(":" + i + "\r\n").equals(r)) {
                    fail("reply " + i + " was " + r);
                }
            }
            writer.join(WAIT.toMillis());
        }
    }
}
