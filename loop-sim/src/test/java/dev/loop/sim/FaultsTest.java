package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FaultsTest {

    @Test
    void aResetBetweenTwoHostsFailsAPendingReadWithConnectionReset() {
        try (Simulation sim = Simulation.create(5)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            SimHost server = sim.host("server", SimulationTest::listenEcho);
            SimHost client = sim.host("client", loop -> loop.spawn(() -> {
                Connection c = Async.await(Net.connect(loop, new InetSocketAddress(server.address(), 7)));
                try {
                    Async.await(c.readLine(100), IOException.class); // the echo server says nothing first
                } catch (IOException e) {
                    failure.set(e);
                }
                return null;
            }));
            sim.at(Duration.ofMillis(100), () -> sim.faults().reset(client, server));
            sim.runUntil(() -> failure.get() != null, Duration.ofSeconds(5));
            assertInstanceOf(SocketException.class, failure.get());
            assertEquals("Connection reset", failure.get().getMessage());
            assertTrue(sim.elapsed().toMillis() >= 100, "not before the reset: " + sim.elapsed());
        }
    }

    @Test
    void aStoppedHostRefusesUntilItRestartsAndTheClientGetsThroughAfter() {
        try (Simulation sim = Simulation.create(11).tracing(true)) {
            List<String> log = new CopyOnWriteArrayList<>();
            SimHost server = sim.host("server", SimulationTest::listenEcho);
            sim.host("client", loop -> loop.spawn(() -> {
                while (true) {
                    try {
                        Connection c = Async.await(Net.connect(loop, new InetSocketAddress(server.address(), 7)),
                                IOException.class);
                        Async.await(c.write("hi\n".getBytes(StandardCharsets.UTF_8)), IOException.class);
                        String answer = Async.await(c.readLine(10), IOException.class);
                        log.add((answer == null ? "closed" : answer) + " at " + loop.time() / 1_000_000 + " ms");
                        if ("hi".equals(answer) && loop.time() > Duration.ofSeconds(2).toNanos()) {
                            return null;
                        }
                        c.abort();
                    } catch (IOException e) {
                        log.add(e.getMessage().replaceAll(":.*", "") + " at " + loop.time() / 1_000_000 + " ms");
                    }
                    Async.sleep(Duration.ofMillis(500));
                }
            }));
            sim.at(Duration.ofMillis(700), server::stop);
            sim.at(Duration.ofMillis(2200), server::restart);
            sim.runUntil(() -> log.stream().anyMatch(l -> l.startsWith("hi at 2")), Duration.ofSeconds(10));
            String all = String.join(", ", log);
            assertTrue(all.startsWith("hi at "), all);
            assertTrue(all.contains("Connection refused at 1"), "refused while the host was down: " + all);
            assertTrue(log.get(log.size() - 1).startsWith("hi at 2"), all);
            assertTrue(sim.trace().stream().anyMatch(l -> l.contains("stop server/")), "the trace shows the stop");
        }
    }

    @Test
    void aSkewedHostsClockRunsAheadOfTheOthers() {
        try (Simulation sim = Simulation.create(2)) {
            AtomicLong late = new AtomicLong();
            AtomicLong early = new AtomicLong();
            SimHost a = sim.host("a", loop -> loop.callLater(Duration.ofSeconds(1), () -> late.set(loop.time())));
            a.skew(Duration.ofSeconds(30));
            Loop[] b = new Loop[1];
            sim.host("b", loop -> {
                b[0] = loop;
                loop.callLater(Duration.ofSeconds(1), () -> early.set(loop.time()));
            });
            sim.runUntil(() -> late.get() != 0 && early.get() != 0, Duration.ofSeconds(5));
            assertEquals(Duration.ofSeconds(30).toNanos(), late.get() - early.get(), "a's clock reads 30 s ahead of b's");
        }
    }
}
