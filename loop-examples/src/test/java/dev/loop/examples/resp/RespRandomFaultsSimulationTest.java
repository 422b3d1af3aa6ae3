package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import dev.loop.sim.RandomFaults;
import dev.loop.sim.Seeds;
import dev.loop.sim.SimHost;
import dev.loop.sim.Simulation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * resp-server, unchanged, under faults the seed draws ({@link RandomFaults}): partitions, resets,
 * latency spikes, and the server's host stopped and restarted. A restarted server starts empty, so
 * the counter's promise holds per incarnation of the server: within one, every answer is above
 * the one before it (no INCR answered twice, none lost once answered) and at most the INCRs sent
 * to it (none counted that was never sent). A connection belongs to the incarnation that was up
 * when it opened; one opened just as the server restarted is reset before it can be answered, so
 * its INCRs only widen the bound, never break it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RespRandomFaultsSimulationTest {
    private static final int SEEDS = 300;
    private static final Duration FAULTS_FOR = Duration.ofSeconds(3);
    private static final byte[] INCR = "*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GET = "*2\r\n$3\r\nGET\r\n$1\r\nn\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final LongAdder BROKEN = new LongAdder();
    private static final LongAdder RESTARTS = new LongAdder();
    private static final LongAdder ANSWERED = new LongAdder();

    /** What the client saw of one incarnation of the server. */
    private static final class Life {
        long sent;
        long answered;
        long last;
    }

    static void run(long seed) {
        try (Simulation sim = Simulation.create(seed).tracing(Seeds.tracing())) {
            AtomicInteger incarnation = new AtomicInteger();
            SimHost server = sim.host("server", loop -> {
                incarnation.incrementAndGet();
                RespSimulationTest.serve(loop);
            });
            Map<Integer, Life> lives = new HashMap<>();
            AtomicReference<String> violation = new AtomicReference<>();
            boolean[] stop = new boolean[1];
            boolean[] done = new boolean[1];
            SimHost client = sim.host("client", loop -> loop.spawn(() -> {
                InetSocketAddress at = new InetSocketAddress(server.address(), 6379);
                ConnectionOptions o = ConnectionOptions.defaults().withConnectTimeout(Duration.ofMillis(500));
                while (!done[0]) {
                    try {
                        Connection c = Async.await(Net.connect(loop, at, o), IOException.class);
                        int id = incarnation.get();
                        Life life = lives.computeIfAbsent(id, k -> new Life());
                        if (stop[0]) { // the faults are over: the counter now is what this incarnation counted
                            Async.await(c.write(GET), IOException.class);
                            String head = reply(c);
                            long now = head.equals("$-1") ? 0 : Long.parseLong(reply(c));
                            if (now < life.last || now > life.sent) {
                                violation.set("incarnation " + id + " holds " + now + " after " + life.sent
                                        + " INCRs sent to it and " + life.last + " answered last");
                            }
                            done[0] = true;
                        }
                        while (!stop[0]) {
                            life.sent++;
                            Async.await(c.write(INCR), IOException.class);
                            String r = reply(c);
                            if (!r.startsWith(":")) {
                                throw new IOException("not a counter: " + r);
                            }
                            long v = Long.parseLong(r.substring(1));
                            if (v <= life.last || v > life.sent) {
                                violation.compareAndSet(null, "incarnation " + id + " answered " + v + " after "
                                        + life.last + ", with " + life.sent + " INCRs sent to it");
                            }
                            life.last = v;
                            life.answered++;
                            ANSWERED.increment();
                            Async.sleep(Duration.ofMillis(5));
                        }
                        c.abort();
                    } catch (IOException | TimeoutException e) {
                        BROKEN.increment();
                        Async.sleep(Duration.ofMillis(50)); // and again, on a new connection
                    }
                }
                return null;
            }));
            sim.faults().latency(Duration.ofMillis(1), Duration.ofMillis(2));
            sim.faults().random(RandomFaults.plan()
                    .partitions(Duration.ofMillis(400), Duration.ofMillis(200))
                    .resets(Duration.ofMillis(300))
                    .latencySpikes(Duration.ofMillis(600), Duration.ofMillis(30), Duration.ofMillis(100))
                    .restarts(Duration.ofMillis(700), Duration.ofMillis(150), server)
                    .until(FAULTS_FOR));
            sim.at(FAULTS_FOR.plusMillis(1), () -> stop[0] = true);
            sim.runUntil(() -> done[0], Duration.ofMinutes(2));
            RESTARTS.add(incarnation.get() - 1);
            assertNull(violation.get(), violation::get);
            assertTrue(client.isUp());
        }
    }

    /** One reply line, within 300 ms. */
    private static String reply(Connection c) throws IOException, TimeoutException {
        String line = Async.timeout(Duration.ofMillis(300), () -> Async.await(c.readLine(64), IOException.class));
        if (line == null) {
            throw new IOException("closed before the reply");
        }
        return line.trim();
    }

    @Test
    void everyIncarnationCountsAtMostOnceUnderRandomFaultsAndRestarts() {
        long start = System.nanoTime();
        Seeds.Failure f = Seeds.search(1, SEEDS, RespRandomFaultsSimulationTest::run);
        assertNull(f, () -> Seeds.replayMessage(f, SEEDS,
                "RespRandomFaultsSimulationTest#everyIncarnationCountsAtMostOnceUnderRandomFaultsAndRestarts")
                + "\n" + f.cause());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("resp-server under random faults: " + SEEDS + " seeds in " + ms + " ms, "
                + ANSWERED.sum() + " INCRs answered, " + RESTARTS.sum() + " server restarts, "
                + BROKEN.sum() + " connections broken");
        assertTrue(RESTARTS.sum() >= SEEDS, "the server restarted only " + RESTARTS.sum() + " times in " + SEEDS + " runs");
        assertTrue(BROKEN.sum() >= SEEDS, "the faults broke only " + BROKEN.sum() + " connections in " + SEEDS + " runs");
        assertTrue(ms < 60_000, SEEDS + " seeds took " + ms + " ms");
    }
}
