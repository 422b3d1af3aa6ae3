package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.ManualClock;
import dev.loop.Task;
import dev.loop.net.Server;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
     * Waits until the recording holds a periodic statistics event of {@code loop} taken after its
     * work (the recorder's period is real time: no clock of ours drives it), bounded by {@link #PATIENCE}.
     */
    private void awaitStatistics(Recording r, Loop loop) throws IOException {
        long end = System.nanoTime() + PATIENCE.toNanos();
        Path file = dir.resolve("so-far.jfr");
        for (;;) {
            r.dump(file);
            boolean seen = RecordingFile.readAllEvents(file).stream().anyMatch(e ->
                    e.getEventType().getName().equals("dev.loop.LoopStatistics") && loop.name().equals(e.getString("loop"))
                            && e.getLong("iterations") > 0);
            if (seen) {
                return;
            }
            assertTrue(System.nanoTime() < end, "no statistics event of " + loop.name());
            spin(loop, 1);
        }
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
            awaitStatistics(r, loop);
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
            long end = System.nanoTime() + PATIENCE.toNanos();
            while (loop.metrics().connectionsOpen() > 0) {
                assertTrue(System.nanoTime() < end, "the connections never closed");
                spin(loop, 1);
            }
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
}
