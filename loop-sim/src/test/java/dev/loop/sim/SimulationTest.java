package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SimulationTest {

    /** An echo server on one host, a client on another, one line each way. */
    static List<String> echo(Simulation sim, int lines) {
        List<String> got = new CopyOnWriteArrayList<>();
        SimHost server = sim.host("server", loop -> {
            try {
                Net.listen(loop, new InetSocketAddress(7), c -> c.loop().spawn(() -> {
                    String line;
                    while ((line = Async.await(c.readLine(1024))) != null) {
                        Async.await(c.write((line + "\n").getBytes(StandardCharsets.UTF_8)));
                    }
                    c.close();
                    return null;
                }));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        sim.host("client", loop -> loop.spawn(() -> {
            Connection c = Async.await(Net.connect(loop, new InetSocketAddress(server.address(), 7)));
            for (int i = 0; i < lines; i++) {
                Async.await(c.write(("line " + i + "\n").getBytes(StandardCharsets.UTF_8)));
                got.add(Async.await(c.readLine(1024)) + " at " + loop.time() / 1000 + " us");
            }
            Async.await(c.close());
            return null;
        }));
        sim.runUntil(() -> got.size() == lines, Duration.ofMinutes(1));
        return got;
    }

    @Test
    void anEchoRoundTripRunsOnVirtualTime() {
        try (Simulation sim = Simulation.create(1)) {
            List<String> got = echo(sim, 3);
            assertEquals(3, got.size());
            assertTrue(got.get(0).startsWith("line 0 at "), got.toString());
            // three round trips of at least 2 x 1 ms each, none of it slept for real
            assertTrue(sim.elapsed().compareTo(Duration.ofMillis(6)) >= 0, "elapsed " + sim.elapsed());
        }
    }

    @Test
    void theSameSeedGivesTheSameRunAndAnotherSeedAnother() {
        List<String> a;
        List<String> b;
        List<String> c;
        try (Simulation sim = Simulation.create(42).tracing(true)) {
            echo(sim, 5);
            a = sim.trace();
        }
        try (Simulation sim = Simulation.create(42).tracing(true)) {
            echo(sim, 5);
            b = sim.trace();
        }
        try (Simulation sim = Simulation.create(43).tracing(true)) {
            echo(sim, 5);
            c = sim.trace();
        }
        assertEquals(a, b);
        assertNotEquals(a, c, "the jitter is the seed's");
    }

    @Test
    void aConnectToAPortNobodyListensOnIsRefusedAfterTheRoundTrip() {
        try (Simulation sim = Simulation.create(7)) {
            SimHost server = sim.host("server", loop -> { });
            Throwable[] failure = new Throwable[1];
            sim.host("client", loop -> Net.connect(loop, new InetSocketAddress(server.address(), 9))
                    .onDone(f -> failure[0] = f.exception()));
            sim.runUntil(() -> failure[0] != null, Duration.ofSeconds(5));
            assertInstanceOf(ConnectException.class, failure[0]);
            assertEquals("Connection refused: " + new InetSocketAddress(server.address(), 9), failure[0].getMessage());
        }
    }

    @Test
    void aPartitionHoldsBytesUntilItHeals() {
        try (Simulation sim = Simulation.create(3)) {
            List<String> got = new CopyOnWriteArrayList<>();
            SimHost[] hosts = new SimHost[2];
            hosts[0] = sim.host("server", loop -> listenEcho(loop));
            hosts[1] = sim.host("client", loop -> loop.spawn(() -> {
                Connection c = Async.await(Net.connect(loop, new InetSocketAddress(hosts[0].address(), 7)));
                Async.sleep(Duration.ofSeconds(1));
                Async.await(c.write("hello\n".getBytes(StandardCharsets.UTF_8)));
                got.add(Async.await(c.readLine(100)) + " after " + loop.time() / 1_000_000 + " ms");
                return null;
            }));
            sim.at(Duration.ofMillis(500), () -> sim.faults().partition(hosts[0], hosts[1]));
            sim.at(Duration.ofSeconds(5), () -> sim.faults().heal(hosts[0], hosts[1]));
            sim.runUntil(() -> !got.isEmpty(), Duration.ofMinutes(1));
            long ms = Long.parseLong(got.get(0).replaceAll(".* after (\\d+) ms", "$1"));
            assertTrue(ms >= 5000 && ms < 5500, got.toString());
        }
    }

    /** A line echo server on port 7; a connection that fails (a reset, a fault) just ends. */
    static void listenEcho(Loop loop) {
        try {
            Net.listen(loop, new InetSocketAddress(7), c -> c.loop().spawn(() -> {
                try {
                    String line;
                    while ((line = Async.await(c.readLine(1024), java.io.IOException.class)) != null) {
                        Async.await(c.write((line + "\n").getBytes(StandardCharsets.UTF_8)), java.io.IOException.class);
                    }
                } catch (java.io.IOException failed) {
                    // the faults under test end connections
                }
                c.close();
                return null;
            }));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
