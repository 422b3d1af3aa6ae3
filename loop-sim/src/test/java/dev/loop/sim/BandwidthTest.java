package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BandwidthTest {
    private static final long LATENCY = Duration.ofMillis(3).toNanos();

    /** Sends {@code bytes} from a client host to a server host; virtual nanoseconds from the first write to the last byte read. */
    static long transfer(Simulation sim, int bytes) {
        return transfer(sim, bytes, (server, client) -> { });
    }

    /** As above, with {@code links} called with the two hosts before the run starts. */
    static long transfer(Simulation sim, int bytes, java.util.function.BiConsumer<SimHost, SimHost> links) {
        AtomicLong started = new AtomicLong(-1);
        AtomicLong finished = new AtomicLong(-1);
        AtomicLong received = new AtomicLong();
        SimHost server = sim.host("server", loop -> {
            try {
                Net.listen(loop, new InetSocketAddress(7), c -> c.loop().spawn(() -> {
                    ByteBuffer b = ByteBuffer.allocate(8192);
                    while (received.get() < bytes) {
                        b.clear();
                        int n = Async.await(c.read(b));
                        if (n < 0) {
                            break;
                        }
                        received.addAndGet(n);
                    }
                    finished.set(loop.time());
                    c.close();
                    return null;
                }));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        SimHost client = sim.host("client", loop -> loop.spawn(() -> {
            Connection c = Async.await(Net.connect(loop, new InetSocketAddress(server.address(), 7)));
            started.set(loop.time());
            Async.await(c.write(new byte[bytes]));
            return null;
        }));
        links.accept(server, client);
        sim.runUntil(() -> finished.get() >= 0, Duration.ofMinutes(5));
        assertEquals(bytes, received.get());
        return finished.get() - started.get();
    }

    @Test
    void sendingXBytesOverALinkOfBBytesPerSecondTakesXOverBPlusTheLatency() {
        int bytes = 1 << 20;
        long rate = 256 * 1024;
        try (Simulation sim = Simulation.create(3)) {
            sim.faults().latency(Duration.ofNanos(LATENCY), Duration.ZERO).bandwidth(rate);
            long took = transfer(sim, bytes);
            long ideal = bytes * 1_000_000_000L / rate + LATENCY; // 4 s on the wire, then the last byte's flight
            long segment = SimSocket.SEGMENT_BYTES * 1_000_000_000L / rate;
            assertTrue(took >= ideal && took <= ideal + segment,
                    "took " + took / 1e6 + " ms; " + ideal / 1e6 + " ms is the link's rate plus its latency, "
                            + "within one segment's time, " + segment / 1e6 + " ms");
        }
    }

    @Test
    void aLinkWithABandwidthOfItsOwnIsSlowerThanTheOthers() {
        int bytes = 256 * 1024;
        try (Simulation sim = Simulation.create(3)) {
            sim.faults().latency(Duration.ofNanos(LATENCY), Duration.ZERO);
            long unlimited = transfer(sim, bytes);
            assertTrue(unlimited < Duration.ofMillis(50).toNanos(), "no limit: only latency, " + unlimited / 1e6 + " ms");
        }
        try (Simulation sim = Simulation.create(3)) {
            sim.faults().latency(Duration.ofNanos(LATENCY), Duration.ZERO);
            long took = transfer(sim, bytes, (server, client) -> sim.faults().bandwidth(server, client, 128 * 1024));
            assertTrue(took >= Duration.ofSeconds(2).toNanos(), "128 KiB/s for 256 KiB: " + took / 1e6 + " ms");
        }
    }

    @Test
    void aNegativeBandwidthIsRefusedNamingIt() {
        try (Simulation sim = Simulation.create(1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sim.faults().bandwidth(-5));
            assertTrue(e.getMessage().contains("-5"), e.getMessage());
        }
    }
}
