package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import dev.loop.sim.SimHost;
import dev.loop.sim.Seeds;
import dev.loop.sim.Simulation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The RESP server, unchanged ({@link RespServer#start(Loop, RespServer.Config)}), on a simulated network: a client sends INCR after
 * INCR, reconnecting whenever its connection fails, while the seed decides when a partition cuts
 * it off (and for how long) and when its connection is reset. Whatever happens, the counter
 * counts every INCR the client saw answered, and none it never sent: at-most-once is all a lost
 * answer allows, and anything else is a bug in the server or in the network's model.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RespSimulationTest {
    private static final int SEEDS = 1000;
    private static final int INCRS = 20;
    /** Connections the faults broke, over every seed: the test is only worth it if they break some. */
    private static final LongAdder BROKEN = new LongAdder();

    /** The server as resp-server runs it, on the simulated host's loop. */
    static void serve(Loop loop) {
        try {
            RespServer.start(loop, RespServer.Config.defaults().withAddress(new InetSocketAddress(6379)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void run(long seed) {
        SplittableRandom faults = new SplittableRandom(seed ^ 0x5DEECE66DL);
        try (Simulation sim = Simulation.create(seed).tracing(Seeds.tracing())) {
            AtomicLong sent = new AtomicLong();
            AtomicLong answered = new AtomicLong();
            AtomicLong lastValue = new AtomicLong();
            boolean[] done = new boolean[1];
            SimHost server = sim.host("server", RespSimulationTest::serve);
            SimHost client = sim.host("client", loop -> loop.spawn(() -> {
                InetSocketAddress at = new InetSocketAddress(server.address(), 6379);
                ConnectionOptions o = ConnectionOptions.defaults().withConnectTimeout(Duration.ofMillis(500));
                while (answered.get() < INCRS) {
                    try {
                        Connection c = Async.await(Net.connect(loop, at, o), IOException.class);
                        while (answered.get() < INCRS) {
                            sent.incrementAndGet();
                            Async.await(c.write("*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n".getBytes(StandardCharsets.US_ASCII)),
                                    IOException.class);
                            String reply = Async.timeout(Duration.ofMillis(300),
                                    () -> Async.await(c.readLine(64), IOException.class));
                            if (reply == null || !reply.startsWith(":")) {
                                throw new IOException("no answer: " + reply);
                            }
                            lastValue.set(Long.parseLong(reply.substring(1).trim()));
                            answered.incrementAndGet();
                        }
                        c.abort();
                    } catch (IOException | java.util.concurrent.TimeoutException e) {
                        BROKEN.increment();
                        Async.sleep(Duration.ofMillis(50)); // and again, on a new connection
                    }
                }
                done[0] = true;
                return null;
            }));
            Duration cutAt = Duration.ofMillis(faults.nextInt(1, 60));
            Duration healAt = cutAt.plusMillis(faults.nextInt(1, 1500));
            sim.at(cutAt, () -> sim.faults().partition(server, client));
            sim.at(healAt, () -> sim.faults().heal(server, client));
            sim.at(Duration.ofMillis(faults.nextInt(1, 200)), () -> sim.faults().reset(client, server));
            sim.runUntil(() -> done[0], Duration.ofMinutes(2));
            long value = lastValue.get();
            assertTrue(value >= answered.get() && value <= sent.get(), "the counter is " + value + " after "
                    + answered.get() + " answered and " + sent.get() + " sent INCRs");
        }
    }

    @Test
    void theCounterSurvivesPartitionsAndResetsForEverySeed() {
        long start = System.nanoTime();
        Seeds.Failure f = Seeds.search(1, SEEDS, RespSimulationTest::run);
        assertNull(f, () -> Seeds.replayMessage(f, SEEDS, "RespSimulationTest#theCounterSurvivesPartitionsAndResetsForEverySeed")
                + "\n" + f.cause());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("resp-server on the simulator: " + SEEDS + " seeds in " + ms + " ms, "
                + BROKEN.sum() + " connections broken by the faults");
        assertTrue(BROKEN.sum() >= SEEDS, "the faults broke only " + BROKEN.sum() + " connections in " + SEEDS + " runs");
        assertTrue(ms < 60_000, SEEDS + " seeds took " + ms + " ms");
    }
}
