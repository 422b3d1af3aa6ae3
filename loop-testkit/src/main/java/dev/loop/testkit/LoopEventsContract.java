package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopMetrics;
import dev.loop.ManualClock;
import dev.loop.Task;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import dev.loop.net.Server;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop's JFR events, recorded with the {@code loop.jfc} that loop-api ships and read back from
 * the recording file, per backend and transport. Only this test's loop's events count: others may
 * run in the same JVM.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class LoopEventsContract extends StreamSuite {
    @TempDir
    Path dir;

    private static Configuration shipped() throws IOException, ParseException {
        try (Reader r = new InputStreamReader(Loop.class.getResourceAsStream("/dev/loop/loop.jfc"), StandardCharsets.UTF_8)) {
            return Configuration.create(r);
        }
    }

    private List<RecordedEvent> stopAndRead(Recording r, Loop loop) throws IOException {
        r.stop();
        Path file = dir.resolve("loop.jfr");
        r.dump(file);
        r.close();
        String name = loop.name();
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.loop.") && name.equals(e.getString("loop")))
                .toList();
    }

    /**
     * Waits until the recording holds a periodic statistics event of {@code loop} that is {@code
     * wanted} (the recorder's period is real time: no clock of ours drives it), bounded by
     * {@link #PATIENCE}, and returns the latest such event.
     */
    private RecordedEvent awaitStatistics(Recording r, Loop loop, String what, Predicate<RecordedEvent> wanted)
            throws IOException {
        long end = System.nanoTime() + PATIENCE.toNanos();
        Path file = dir.resolve("so-far.jfr");
        for (;;) {
            r.dump(file);
            List<RecordedEvent> seen = RecordingFile.readAllEvents(file).stream().filter(e ->
                    e.getEventType().getName().equals("dev.loop.LoopStatistics") && loop.name().equals(e.getString("loop"))
                            && wanted.test(e)).toList();
            if (!seen.isEmpty()) {
                return seen.get(seen.size() - 1);
            }
            assertTrue(System.nanoTime() < end, "no statistics event of " + loop.name() + " " + what);
            spin(loop, 1);
        }
    }

    /** Runs the loop until its stream connections have closed, so that their counts no longer move. */
    private static void awaitClosed(Loop loop) {
        long end = System.nanoTime() + PATIENCE.toNanos();
        while (loop.metrics().connectionsOpen() > 0) {
            assertTrue(System.nanoTime() < end, "the connections never closed");
            spin(loop, 1);
        }
    }

    /** The event's {@code backendCounters} text ({@code name=count ...}) read back as the snapshot's map. */
    private static Map<String, Long> backendCounters(RecordedEvent e) {
        Map<String, Long> m = new LinkedHashMap<>();
        String text = e.getString("backendCounters");
        assertNotNull(text, "" + e);
        for (String pair : text.isEmpty() ? new String[0] : text.split(" ")) {
            int eq = pair.indexOf('=');
            assertTrue(eq > 0, "not name=count: " + pair + " in " + e);
            m.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
        }
        return m;
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String type) {
        return events.stream().filter(e -> e.getEventType().getName().equals(type)).toList();
    }

    @Test
    void slowCallbacksTaskTurnsStallsAndStatisticsAreRecorded() throws Exception {
        Assumptions.assumeTrue(cell.transport().equals("tcp"), "nothing here is per transport: once per backend");
        ManualClock clock = ManualClock.autoAdvancing();
        // threshold 0: every callback and turn is "slow", so no test has to be slow for real
        Loop loop = loops.open(options().withClock(clock).withSlowCallbackThreshold(Duration.ZERO));
        try (Recording r = new Recording(shipped())) {
            r.enable("dev.loop.LoopStatistics").with("period", "10 ms");
            r.start();
            loop.execute(new Runnable() {
                @Override
                public void run() {
                    clock.advance(Duration.ofMillis(5)); // a 5 ms iteration on the loop's clock
                }

                @Override
                public String toString() {
                    return "the five-millisecond callback";
                }
            });
            Task<Object> task = loop.spawn(() -> {
                Async.sleep(Duration.ofMillis(1)); // two turns
                return null;
            });
            loop.runUntilComplete(task); // (run() would close the loop, and a closed loop has no statistics)
            awaitStatistics(r, loop, "after its work", e -> e.getLong("iterations") > 0);
            List<RecordedEvent> events = stopAndRead(r, loop);

            assertTrue(named(events, "dev.loop.SlowCallback").stream()
                    .anyMatch(e -> "the five-millisecond callback".equals(e.getString("callback"))), "" + events);
            assertTrue(named(events, "dev.loop.SlowTaskTurn").stream()
                    .anyMatch(e -> e.getString("task").contains(task.name())), "" + events);
            assertTrue(named(events, "dev.loop.LoopStall").stream()
                    .anyMatch(e -> e.getLong("busy") == 5_000_000 && e.getLong("callbacks") >= 1), "" + events);
            List<RecordedEvent> stats = named(events, "dev.loop.LoopStatistics");
            assertFalse(stats.isEmpty(), "" + events);
            assertTrue(stats.get(stats.size() - 1).getLong("iterations") > 0);
        }
    }

    @Test
    void connectionsAndHandshakesAreRecordedWithTheirAddressesAndBytes() throws Exception {
        Loop loop = open();
        Server server = echoServer(loop);
        int size = 50_000;
        byte[] data = randomBytes(new Random(5), size);
        try (Recording r = new Recording(shipped())) {
            r.start();
            assertArrayEquals(data, await(loop, echo(loop, server, data, new Random(6))));
            awaitClosed(loop);
            List<RecordedEvent> events = stopAndRead(r, loop);

            assertEquals(2, named(events, "dev.loop.ConnectionOpened").size(), "" + events);
            List<RecordedEvent> closed = named(events, "dev.loop.ConnectionClosed");
            assertEquals(2, closed.size(), "" + events);
            for (RecordedEvent e : closed) {
                assertEquals(size, e.getLong("bytesIn"), "each end read all of it: " + e);
                assertEquals(size, e.getLong("bytesOut"), "and wrote all of it: " + e);
                assertNotNull(e.getString("remote"));
            }
            List<RecordedEvent> tls = named(events, "dev.loop.TlsHandshake");
            assertEquals(isTls() ? 2 : 0, tls.size(), "" + events);
            for (RecordedEvent e : tls) {
                assertNotNull(e.getString("protocol"));
                assertNotNull(e.getString("cipherSuite"));
                assertNull(e.getString("failure"));
            }
        }
    }

    /**
     * The statistics event carries the snapshot's counts of I/O, and they move under real traffic:
     * the stream reads and writes of a TCP echo, the datagrams of a UDP exchange, the datagrams the
     * kernel dropped at a socket nobody reads (where the kernel says), and the backend's own counters.
     */
    @Test
    void statisticsCarryStreamDatagramAndBackendCounts() throws Exception {
        Assumptions.assumeTrue(cell.transport().equals("tcp"), "one TCP echo and one UDP exchange: once per backend");
        Loop loop = open();
        Server server = echoServer(loop);
        boolean udp = Matrix.offers(cell.backend(), "udp");
        boolean drops = udp && Matrix.kernelSockets(cell.backend()) && Files.isReadable(Path.of("/proc/net/udp"));
        try (Recording r = new Recording(shipped())) {
            r.enable("dev.loop.LoopStatistics").with("period", "10 ms");
            r.start();
            RecordedEvent before = awaitStatistics(r, loop, "before the traffic", e -> true);

            byte[] data = randomBytes(new Random(7), 50_000);
            assertArrayEquals(data, await(loop, echo(loop, server, data, new Random(8))));
            awaitClosed(loop);
            int exchanged = udp ? 10 : 0;
            if (udp) {
                DatagramEndpoint echoer = DatagramSuite.echo(loop);
                DatagramEndpoint client = DatagramSuite.bind(loop);
                for (int i = 0; i < exchanged; i++) {
                    await(loop, client.send(DatagramSuite.utf8("datagram " + i), echoer.localAddress()));
                    assertEquals("datagram " + i, DatagramSuite.text(await(loop, client.receive())));
                }
            }
            int flooded = 200;
            if (drops) {
                // as DatagramMetricsContract: the smallest receive buffer, never read, overflows
                DatagramEndpoint deaf = Datagrams.bind(loop, ANY_PORT, DatagramOptions.defaults().withBufferSizes(0, 1));
                byte[] payload = new byte[1000];
                try (DatagramSocket flood = new DatagramSocket(0, ANY_PORT.getAddress())) {
                    for (int i = 0; i < flooded; i++) {
                        flood.send(new DatagramPacket(payload, payload.length, deaf.localAddress()));
                    }
                }
            }
            LoopMetrics m = loop.metrics();
            // the kernel's drops are read at most once a second: wait for an event that has them
            RecordedEvent after = awaitStatistics(r, loop, "after the traffic", e -> e.getLong("streamReads") == m.streamReads()
                    && e.getLong("datagramsIn") == m.datagramsIn() && (!drops || e.getLong("datagramsDropped") > 0));
            r.stop();

            assertEquals(0, before.getLong("streamReads"), "nothing read yet: " + before);
            assertTrue(m.streamReads() > 0 && m.streamWrites() > 0, "the echo read and wrote: " + m);
            assertEquals(m.streamWrites(), after.getLong("streamWrites"), "" + after);
            assertEquals(2L * exchanged, after.getLong("datagramsIn"), "the echoer's and the client's receives: " + after);
            assertEquals(2L * exchanged, after.getLong("datagramsOut"), "the client's sends and the echoes: " + after);
            assertEquals(0, before.getLong("datagramsIn") + before.getLong("datagramsOut"), "" + before);
            long dropped = after.getLong("datagramsDropped");
            assertTrue(drops ? dropped > 0 && dropped <= flooded : dropped == 0,
                    "the kernel dropped some of " + flooded + " into a tiny buffer (" + drops + "): " + after);

            Map<String, Long> was = backendCounters(before);
            Map<String, Long> is = backendCounters(after);
            assertEquals(List.copyOf(m.backendCounters().keySet()), List.copyOf(is.keySet()),
                    "the snapshot's counters, by name, in the backend's order: " + after);
            assertEquals(was.keySet(), is.keySet(), "a backend's counters are fixed");
            boolean shipped = List.of("select", "epoll", "io_uring").contains(cell.backend());
            assertTrue(!shipped || !is.isEmpty(), "the backends this project ships count their system calls: " + after);
            for (String name : is.keySet()) {
                long moved = is.get(name) - was.get(name);
                // every counter of a shipped backend counts something an echo over its sockets does
                assertTrue(moved >= 0 && (!shipped || moved > 0), name + " did not rise under traffic: " + before + " -> " + after);
            }
        }
    }
}
