package dev.loop.examples.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import dev.loop.sim.RandomFaults;
import dev.loop.sim.Seeds;
import dev.loop.sim.SimHost;
import dev.loop.sim.Simulation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * http-server, unchanged ({@link HttpServer#start(Loop, HttpServer.Config)}, push or task style as
 * the seed draws), on a simulated host; a client on another host sends keep-alive requests, one to
 * three pipelined at a time, {@code GET /plaintext} and {@code POST /echo} with a body of up to
 * 6 KB that names the request, through latency, a bandwidth limit, partitions and resets drawn
 * from the seed, and reconnects (sending again what was not answered) when its connection breaks.
 *
 * <p>Whatever breaks, every response the client reads whole is the one to the request it sent in
 * that place: its status, its length and its body (the plaintext's, or the echoed body byte for
 * byte), never a mix of two nor a truncated one followed by the next. A response cut off by a
 * reset is a broken connection, not a wrong answer: the client only sees it as a read that fails.
 * When the client is done, every connection the server opened is closed again, however it was
 * left behind (a reset lost in a partition leaves it to the server's own deadlines).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpSimulationTest {
    private static final int SEEDS = 300;
    private static final Duration FAULTS_FOR = Duration.ofSeconds(2);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final LongAdder ANSWERED = new LongAdder();
    private static final LongAdder BROKEN = new LongAdder();
    private static final LongAdder CONNECTIONS = new LongAdder();
    /** The longest virtual time, over every seed, the server took to close its last connection. */
    private static final AtomicReference<Duration> LONGEST_DRAIN = new AtomicReference<>(Duration.ZERO);

    /** A request as sent, and what its response must be. */
    private record Request(byte[] bytes, byte[] expectedBody, String what) {
        static Request get(int n) {
            return new Request(("GET /plaintext?n=" + n + " HTTP/1.1\r\nHost: server\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII), HELLO, "GET #" + n);
        }

        static Request echo(int n, SplittableRandom random) {
            byte[] body = new byte[random.nextInt(8, 6000)];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) ('a' + random.nextInt(26));
            }
            byte[] name = ("#" + n + ":").getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(name, 0, body, 0, Math.min(name.length, body.length));
            byte[] head = ("POST /echo HTTP/1.1\r\nHost: server\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            byte[] all = Arrays.copyOf(head, head.length + body.length);
            System.arraycopy(body, 0, all, head.length, body.length);
            return new Request(all, body, "POST #" + n + " of " + body.length + " bytes");
        }
    }

    static void run(long seed) {
        run(seed, Seeds.tracing());
    }

    /** One run of {@code seed}; returns its trace (empty unless {@code tracing}). */
    static List<String> run(long seed, boolean tracing) {
        SplittableRandom draws = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        HttpServer.Style style = draws.nextBoolean() ? HttpServer.Style.PUSH : HttpServer.Style.TASK;
        try (Simulation sim = Simulation.create(seed).tracing(tracing)) {
            SimHost server = sim.host("server", loop -> {
                try {
                    HttpServer.start(loop, HttpServer.Config.defaults().withAddress(new InetSocketAddress(8080))
                            .withStyle(style));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            AtomicReference<String> violation = new AtomicReference<>();
            boolean[] stop = new boolean[1];
            boolean[] done = new boolean[1];
            SplittableRandom requests = draws.split();
            SimHost client = sim.host("client", loop -> loop.spawn(() -> {
                InetSocketAddress at = new InetSocketAddress(server.address(), 8080);
                ConnectionOptions o = ConnectionOptions.defaults().withConnectTimeout(Duration.ofMillis(500));
                List<Request> batch = new ArrayList<>();
                int n = 0;
                while (!done[0]) {
                    Connection c = null;
                    try {
                        c = Async.await(Net.connect(loop, at, o), IOException.class);
                        CONNECTIONS.increment();
                        while (true) {
                            if (batch.isEmpty()) { // else: what the broken connection left unanswered, again
                                if (stop[0]) {
                                    break;
                                }
                                for (int k = requests.nextInt(1, 4); k > 0; k--) {
                                    batch.add(requests.nextBoolean() ? Request.get(++n) : Request.echo(++n, requests));
                                }
                            }
                            for (Request r : batch) {
                                Async.await(c.write(r.bytes()), IOException.class);
                            }
                            while (!batch.isEmpty()) {
                                String wrong = check(c, batch.get(0));
                                if (wrong != null) {
                                    violation.compareAndSet(null, wrong);
                                    done[0] = true;
                                    c.abort();
                                    return null;
                                }
                                batch.remove(0);
                                ANSWERED.increment();
                            }
                        }
                        Connection last = c;
                        Async.timeout(Duration.ofSeconds(1), () -> Async.await(last.close(), IOException.class));
                        done[0] = true;
                    } catch (IOException | TimeoutException e) {
                        BROKEN.increment();
                        if (c != null) {
                            c.abort();
                        }
                        Async.sleep(Duration.ofMillis(50)); // and again, on a new connection
                    }
                }
                return null;
            }));
            sim.faults().latency(Duration.ofMillis(draws.nextInt(1, 10)), Duration.ofMillis(draws.nextInt(1, 5)));
            sim.faults().bandwidth(server, client, 64 * 1024L << draws.nextInt(0, 6)); // 64 KiB/s to 2 MiB/s
            sim.faults().random(RandomFaults.plan()
                    .partitions(Duration.ofMillis(500), Duration.ofMillis(300))
                    .resets(Duration.ofMillis(300))
                    .until(FAULTS_FOR));
            sim.at(FAULTS_FOR.plusMillis(1), () -> stop[0] = true);
            sim.runUntil(() -> done[0], Duration.ofMinutes(2));
            assertNull(violation.get(), violation::get);
            Duration clientDone = sim.elapsed();
            Loop serverLoop = server.loop();
            sim.runUntil(() -> serverLoop.metrics().connectionsOpen() == 0, Duration.ofMinutes(2));
            Duration drain = sim.elapsed().minus(clientDone);
            LONGEST_DRAIN.accumulateAndGet(drain, (a, b) -> a.compareTo(b) >= 0 ? a : b);
            assertEquals(0, client.loop().metrics().connectionsOpen(), "the client's connections");
            return sim.trace();
        }
    }

    /**
     * The server reads the wall clock for its {@code Date} header, outside the simulator's order;
     * that changes bytes, never their count, so a seed still replays the same run.
     */
    @Test
    void aSeedReplaysTheSameRun() {
        List<String> first = run(7, true);
        assertTrue(first.size() > 100, "a run of " + first.size() + " events");
        assertEquals(first, run(7, true));
    }

    /**
     * Reads one response and compares it with what {@code r} must get.
     *
     * @return what was wrong with it, or null
     * @throws IOException      the connection broke before the whole response came
     * @throws TimeoutException it did not come within 2 s
     */
    private static String check(Connection c, Request r) throws IOException, TimeoutException {
        String status = line(c);
        List<String> headers = new ArrayList<>();
        long length = -1;
        for (String h = line(c); !h.isEmpty(); h = line(c)) {
            headers.add(h);
            if (h.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Long.parseLong(h.substring(15).trim());
            }
        }
        if (!status.equals("HTTP/1.1 200 OK") || length != r.expectedBody().length) {
            return r.what() + " got " + status + " " + headers;
        }
        int n = (int) length;
        ByteBuffer body = Async.timeout(Duration.ofSeconds(2), () -> Async.await(c.readExactly(n), IOException.class));
        byte[] got = new byte[n];
        body.get(got);
        return Arrays.equals(got, r.expectedBody()) ? null
                : r.what() + " got another body: " + new String(got, 0, Math.min(n, 40), StandardCharsets.US_ASCII);
    }

    /** One whole CRLF-ended line, without its ending. */
    private static String line(Connection c) throws IOException, TimeoutException {
        ByteBuffer b = Async.timeout(Duration.ofSeconds(2), () -> Async.await(c.readUntil(CRLF, 8192), IOException.class));
        return StandardCharsets.US_ASCII.decode(b).toString().stripTrailing();
    }

    @Test
    void everyResponseIsWholeAndTheOneAskedForAndNoConnectionIsLeftBehind() {
        long start = System.nanoTime();
        Seeds.Failure f = Seeds.search(1, SEEDS, HttpSimulationTest::run);
        assertNull(f, () -> Seeds.replayMessage(f, SEEDS,
                "HttpSimulationTest#everyResponseIsWholeAndTheOneAskedForAndNoConnectionIsLeftBehind") + "\n" + f.cause());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("http-server on the simulator: " + SEEDS + " seeds in " + ms + " ms, " + ANSWERED.sum()
                + " responses checked on " + CONNECTIONS.sum() + " connections, " + BROKEN.sum()
                + " broken by the faults; the server closed its last one at most " + LONGEST_DRAIN.get()
                + " (virtual) after the client was done");
        assertTrue(BROKEN.sum() >= SEEDS, "the faults broke only " + BROKEN.sum() + " connections in " + SEEDS + " runs");
        assertTrue(ms < 60_000, SEEDS + " seeds took " + ms + " ms");
    }
}
