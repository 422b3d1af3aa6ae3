package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** {@link Simulated} runs the body once per seed, each with its own simulation. */
class SimulatedExtensionTest {
    private static final Set<Long> SEEDS = ConcurrentHashMap.newKeySet();
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** An echo through a partition that heals: every seed gets its answer, late. */
    @Simulated(seeds = 50, firstSeed = 100)
    void anEchoSurvivesAPartitionThatHeals(Simulation sim) {
        RUNS.incrementAndGet();
        SEEDS.add(sim.seed());
        List<String> got = new CopyOnWriteArrayList<>();
        SimHost server = sim.host("server", SimulationTest::listenEcho);
        SimHost client = sim.host("client", loop -> loop.spawn(() -> {
            Connection c = Async.await(Net.connect(loop, new InetSocketAddress(server.address(), 7)));
            for (int i = 0; i < 5; i++) {
                Async.await(c.write(("m" + i + "\n").getBytes(StandardCharsets.UTF_8)));
                got.add(Async.await(c.readLine(100)));
                Async.sleep(Duration.ofMillis(100));
            }
            return null;
        }));
        sim.at(Duration.ofMillis(150), () -> sim.faults().partition(server, client));
        sim.at(Duration.ofMillis(1150), () -> sim.faults().heal(server, client));
        sim.runUntil(() -> got.size() == 5, Duration.ofSeconds(30));
        assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), got);
        assertTrue(sim.elapsed().toMillis() >= 1150, "the partition held the echo back: " + sim.elapsed());
    }

    @Test
    void aFailureNamesItsSeedAndTheCommandThatReplaysIt() {
        Seeds.Failure f = Seeds.search(7, 10, seed -> {
            if (seed == 9) {
                throw new AssertionError("boom");
            }
        });
        assertEquals(9, f.seed());
        String m = Seeds.replayMessage(f, 10, "SomeTest#body");
        assertTrue(m.startsWith("simulated run failed with seed 9 (run 3 of 10): java.lang.AssertionError: boom"), m);
        assertTrue(m.contains("mvn test -Dtest='SomeTest#body' -Dloop.sim.seed=9 -Dloop.sim.trace=true"), m);
    }

    @AfterAll
    static void everySeedRanOnce() {
        if (RUNS.get() > 0 && System.getProperty(Seeds.SEED_PROPERTY) == null) {
            assertEquals(50, RUNS.get());
            assertEquals(50, SEEDS.size());
        }
    }
}
