package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RandomFaultsTest {
    private static final int LINES = 20;

    /** A client that sends numbered lines to an echo server, reconnecting after any failure, until every line came back. */
    static List<String> survive(Simulation sim, RandomFaults plan) {
        List<String> got = new CopyOnWriteArrayList<>();
        SimHost server = sim.host("server", SimulationTest::listenEcho);
        SimHost client = sim.host("client", loop -> loop.spawn(() -> {
            ConnectionOptions options = ConnectionOptions.defaults()
                    .withConnectTimeout(Duration.ofSeconds(1)).withReadTimeout(Duration.ofSeconds(1));
            while (got.size() < LINES) {
                try {
                    Connection c = Async.await(Net.connect(loop, new InetSocketAddress(server.address(), 7), options),
                            IOException.class);
                    while (got.size() < LINES) {
                        String line = "line " + got.size();
                        Async.await(c.write((line + "\n").getBytes(StandardCharsets.UTF_8)), IOException.class);
                        String answer = Async.await(c.readLine(100), IOException.class);
                        if (answer == null) {
                            break; // the server went away: connect again
                        }
                        if (answer.equals(line)) {
                            got.add(answer + " at " + loop.time() / 1_000_000 + " ms");
                        }
                        Async.sleep(Duration.ofMillis(50));
                    }
                    c.abort();
                } catch (IOException e) {
                    Async.sleep(Duration.ofMillis(100));
                }
            }
            return null;
        }));
        sim.faults().random(plan.restarts(Duration.ofMillis(800), Duration.ofMillis(300), server));
        sim.runUntil(() -> got.size() == LINES, Duration.ofSeconds(60));
        assertTrue(sim.network().hosts().contains(client));
        return got;
    }

    static RandomFaults everything() {
        return RandomFaults.plan()
                .partitions(Duration.ofMillis(300), Duration.ofMillis(200))
                .resets(Duration.ofMillis(400))
                .latencySpikes(Duration.ofMillis(500), Duration.ofMillis(20), Duration.ofMillis(100))
                .until(Duration.ofSeconds(3));
    }

    @Simulated(seeds = 40)
    void aReconnectingClientGetsEveryLineThroughPartitionsResetsSpikesAndRestarts(Simulation sim) {
        List<String> got = survive(sim, everything());
        assertEquals(LINES, got.size(), got.toString());
    }

    @Test
    void theFaultsDrawnAreTheSeedsAndTheTraceShowsThem() {
        List<String> first = faultsOf(7);
        List<String> again = faultsOf(7);
        List<String> other = faultsOf(8);
        assertTrue(first.size() > 5, "a 3 s plan at these rates draws several faults: " + first);
        assertTrue(first.stream().anyMatch(l -> l.contains("random: partition server | client")
                || l.contains("random: partition client | server")), first.toString());
        assertTrue(first.stream().anyMatch(l -> l.contains("random: stop server, restart after")), first.toString());
        assertTrue(first.stream().anyMatch(l -> l.contains("random: latency spike +20.000 ms")), first.toString());
        assertTrue(first.get(first.size() - 1).contains("random: end of faults"), first.toString());
        assertEquals(first, again, "one seed, one set of faults at the same instants");
        assertNotEquals(first, other);
    }

    private static List<String> faultsOf(long seed) {
        try (Simulation sim = Simulation.create(seed).tracing(true)) {
            RandomFaults plan = everything();
            survive(sim, plan);
            sim.run(Duration.ofSeconds(3)); // past the plan's end
            List<String> faults = sim.trace().stream().filter(l -> l.contains("random:")).toList();
            assertEquals(plan.drawn() + 1, faults.size(), "one line per fault drawn, and the end: " + faults);
            return faults;
        }
    }

    @Test
    void aPlanRefusesRatesThatAreNotPositiveNamingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RandomFaults.plan().partitions(Duration.ZERO, Duration.ofMillis(1)));
        assertTrue(e.getMessage().contains("meanEvery"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RandomFaults.plan().restarts(
                Duration.ofSeconds(1), Duration.ofSeconds(1)));
    }

}
