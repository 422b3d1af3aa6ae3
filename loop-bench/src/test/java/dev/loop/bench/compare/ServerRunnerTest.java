package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server runner's pairing, with stand-ins: "servers" are shell processes that announce a port
 * and wait, and the load is a fake that records every window it is asked for and reports figures
 * made up per server, so the test sees what the runner does, not what a network does.
 */
class ServerRunnerTest {

    /** A load that remembers each call: which server (by port), warm-up or measured, burst or not. */
    static final class FakeLoad implements ServerLoad.Load {
        final List<String> calls = new ArrayList<>();
        int closed;

        @Override
        public ServerLoad.Window run(ServerLoad.Endpoint server, Duration settle, Duration length, boolean burst,
                                     ServerLoad.Meter meter) throws IOException {
            boolean metered = meter != ServerLoad.Meter.NONE;
            calls.add((burst ? "burst " : metered ? "window " : "warm ") + server.port());
            assertFalse(server.pids().isEmpty());
            meter.begin();
            meter.end();
            // port 1 does twice the work of port 2 in every window
            long ops = server.port() == 1 ? 2000 : 1000;
            return new ServerLoad.Window(ops, ops * 64, 0.5, 0.1, 50, 90);
        }

        @Override
        public void close() {
            closed++;
        }
    }

    static ServerLoad.Spec server(String name, Row.Side side, int port) {
        // prints the port the way our servers do, then waits for its input to end
        return new ServerLoad.Spec(name, side, List.of("sh", "-c", "echo LISTENING " + port + "; exec cat"), 0, null);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyServerIsWarmBeforeAnyWindowAndWindowsAlternateInRounds(@TempDir Path dir) throws Exception {
        FakeLoad load = new FakeLoad();
        List<ServerLoad.Workload> workloads = List.of(
                new ServerLoad.Workload("echo", "w1", "msgs/s", "msg", false, load),
                new ServerLoad.Workload("echo", "w2", "msgs/s", "msg", false, load));
        List<ServerLoad.Spec> specs = List.of(server("ours", Row.Side.OURS, 1), server("peer", Row.Side.PEER, 2),
                new ServerLoad.Spec("absent", Row.Side.PEER, List.of("true"), 0, "n/a (not installed)"));
        ServerRunner.Settings settings = new ServerRunner.Settings(Duration.ofMillis(10), Duration.ZERO,
                Duration.ofMillis(10), 3, Duration.ofMillis(10), false, "n/a (not traced in this test)");
        Results results = new Results();
        Progress progress = new Progress(new PrintStream(new ByteArrayOutputStream()), 3);
        new ServerRunner(settings, progress, dir).run(specs, workloads, results);

        // warm-up: each server under each workload, all before the first window
        assertEquals(List.of("warm 1", "warm 1", "warm 2", "warm 2"), load.calls.subList(0, 4));
        // then per workload: 3 rounds, order rotating (ABBA with two servers); the skipped one never runs
        assertEquals(List.of("window 1", "window 2", "window 2", "window 1", "window 1", "window 2"),
                load.calls.subList(4, 10));
        assertEquals(4 + 2 * 6, load.calls.size()); // no bursts: strace was off
        assertEquals(2, load.closed);

        List<Row> w1 = results.rowsOf("w1");
        assertEquals(3, w1.size());
        Row ours = w1.get(0);
        assertEquals(List.of(4000.0, 4000.0, 4000.0), ours.samples()); // 2000 msgs / 0.5 s
        assertEquals(50, ours.p50Micros());
        assertEquals(0.2, ours.clientCpu(), 1e-9);
        assertTrue(ours.cpuPerOp() >= 0, "CPU per message measured: " + ours.cpuPerOp());
        assertEquals("n/a (not traced in this test)", ours.syscalls().note());
        Row absent = w1.stream().filter(r -> r.contender().equals("absent")).findFirst().orElseThrow();
        assertEquals("n/a (not installed)", absent.note());
        assertTrue(results.pairing("w1").contains("3 rounds"));
        Rounds.Estimate ratio = results.ratio(ours, w1.get(1));
        assertEquals(3, ratio.n());
        assertEquals(2.0, ratio.median());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aServerThatDoesNotStartIsARowSayingWhy(@TempDir Path dir) throws Exception {
        FakeLoad load = new FakeLoad();
        List<ServerLoad.Workload> workloads = List.of(new ServerLoad.Workload("echo", "w", "msgs/s", "msg", false, load));
        List<ServerLoad.Spec> specs = List.of(
                new ServerLoad.Spec("mute", Row.Side.OURS, List.of("sh", "-c", "echo UNSUPPORTED no sockets"), 0, null),
                new ServerLoad.Spec("broken", Row.Side.PEER, List.of("sh", "-c", "echo oops >&2; exit 1"), 0, null));
        ServerRunner.Settings settings = new ServerRunner.Settings(Duration.ofMillis(10), Duration.ZERO,
                Duration.ofMillis(10), 2, Duration.ofMillis(10), false, "n/a (off)");
        Results results = new Results();
        new ServerRunner(settings, new Progress(new PrintStream(new ByteArrayOutputStream()), 2), dir)
                .run(specs, workloads, results);
        assertTrue(load.calls.isEmpty(), load.calls.toString());
        assertEquals("n/a (no sockets)", results.rowsOf("w").get(0).note());
        assertTrue(results.rowsOf("w").get(1).note().startsWith("failed: server did not start (oops"),
                results.rowsOf("w").get(1).note());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void oursReportTheirLoopsOverEachWindowAndPeersAreNeverAsked(@TempDir Path dir) throws Exception {
        FakeLoad load = new FakeLoad();
        List<ServerLoad.Workload> workloads = List.of(new ServerLoad.Workload("echo", "w", "msgs/s", "msg", false, load));
        // answers the probe as LoopProbe does; "mute" echoes every line back, which is no answer
        String probe = "echo LISTENING %d; while read l; do case $l in loop-mark) echo 'LOOP marked';;"
                + " loop-report) echo 'LOOP cpuNanos=1000 loops=2 iterations=9 busy=0.25 lagP99Nanos=4000';; esac; done";
        List<ServerLoad.Spec> specs = List.of(
                new ServerLoad.Spec("ours", Row.Side.OURS, List.of("sh", "-c", probe.formatted(1)), 0, null),
                new ServerLoad.Spec("peer", Row.Side.PEER, List.of("sh", "-c", probe.formatted(2)), 0, null),
                new ServerLoad.Spec("mute", Row.Side.OURS, List.of("sh", "-c", "echo LISTENING 3; exec cat"), 0, null));
        ServerRunner.Settings settings = new ServerRunner.Settings(Duration.ofMillis(10), Duration.ZERO,
                Duration.ofMillis(10), 3, Duration.ofMillis(10), false, "n/a (off)", true);
        Results results = new Results();
        long t0 = System.nanoTime();
        new ServerRunner(settings, new Progress(new PrintStream(new ByteArrayOutputStream()), 1), dir)
                .run(specs, workloads, results);
        List<Row> rows = results.rowsOf("w");

        Row ours = rows.get(0);
        assertEquals(0.25, ours.loopBusy());
        assertEquals(4000, ours.loopLagP99Nanos());
        // its own CPU to the nanosecond (selfCpu): 1000 ns over 2000 messages, every round
        assertEquals(3, ours.cpuPerOpSamples().size());
        ours.cpuPerOpSamples().forEach(c -> assertEquals(5e-10, c, 1e-15));
        Row mute = rows.get(1);
        assertEquals("mute", mute.contender());
        assertFalse(mute.hasLoopMetrics());
        assertEquals(3, mute.samples().size(), "a server without a probe is measured all the same");
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(ServerControl.REPLY_SECONDS),
                "a foreign answer turns the probe off at once, without waiting for a reply");
        Row peer = rows.get(2);
        assertFalse(peer.hasLoopMetrics(), "a peer is never asked, whatever it would answer");
        assertTrue(Double.isNaN(peer.loopLagP99Nanos()));
    }
}
