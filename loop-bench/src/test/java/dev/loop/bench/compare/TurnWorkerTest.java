package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class TurnWorkerTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void drivesAJmhBenchmarkMethodWithItsStateAndParameters() throws Exception {
        // the JMH state's @Param is set and its trial @Setup run: an epoll-less Netty NIO loop
        TurnWorker w = new TurnWorker("CallSoonInLoopBenchmark.nettyExecute", Map.of("transport", "nio"));
        long[] r = w.window(TimeUnit.MILLISECONDS.toNanos(50));
        assertTrue(r[0] >= 10_000, "one invocation is a batch of 10,000 callbacks: " + r[0]);
        assertTrue(r[1] >= TimeUnit.MILLISECONDS.toNanos(50), "ran the whole window: " + r[1]);
    }

    @Test
    void badBenchmarksAndParametersAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new TurnWorker("CallSoonInLoopBenchmark.nope", Map.of())).getMessage().contains("nope"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new TurnWorker("CallSoonInLoopBenchmark.nettyExecute", Map.of())).getMessage()
                .contains("transport needs a value"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new TurnWorker("CallSoonInLoopBenchmark.nettyExecute", Map.of("transport", "nio", "bogus", "1")))
                .getMessage().contains("bogus"));
    }

    @Test
    void everyParameterCombinationIsAContenderOfItsWorkload() {
        CompareOptions o = CompareOptions.parse("--workloads", "timers,future", "--pending", "10k,1m");
        MicroRunner.Plan plan = new MicroRunner.Plan(List.of("select", "epoll"), List.of("heap", "wheel"),
                List.of("heap"), List.of("nio"), o.pending(), false, true);
        Map<String, List<MicroRunner.Entry>> w = MicroRunner.byWorkload(MicroRunner.cases(o, plan));
        assertEquals(List.of("timers fire, 10k pending", "timers fire, 1M pending", "timers schedule+cancel, 10k pending",
                "timers schedule+cancel, 1M pending", "future + callback", "future + callback, completed off the loop"),
                List.copyOf(w.keySet()));
        List<String> fire = w.get("timers fire, 10k pending").stream().map(MicroRunner.Entry::contender).toList();
        assertEquals(List.of("loop select/heap", "loop select/wheel", "loop epoll/heap", "loop epoll/wheel",
                "netty nio schedule", "netty HashedWheelTimer", "jdk ScheduledThreadPoolExecutor"), fire);
        assertEquals(List.of("loop select/heap", "loop epoll/heap", "jdk CompletableFuture thenAccept"),
                w.get("future + callback").stream().map(MicroRunner.Entry::contender).toList());
        assertEquals(List.of("loop select/heap", "loop epoll/heap", "jdk CompletableFuture thenAccept",
                "jdk CompletableFuture thenAcceptAsync"),
                w.get("future + callback, completed off the loop").stream().map(MicroRunner.Entry::contender).toList());
        // the worker's command carries the benchmark's fork flags and one heap size for all
        List<String> cmd = MicroRunner.command(w.get("future + callback").get(0));
        assertTrue(cmd.contains("--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"), cmd.toString());
        assertTrue(cmd.contains("-Xmx1g") && !cmd.contains("-Xmx2g"), cmd.toString());
        assertEquals(List.of("FutureBenchmark.loopPromise", "backend=select", "timers=heap"),
                cmd.subList(cmd.size() - 3, cmd.size()));
    }

    @Test
    void futuresWarmUpForAtLeastFiveSecondsWhateverThePresetAsks() {
        assertEquals(Duration.ofSeconds(5), MicroRunner.warmup("future", Duration.ofMillis(400)));
        assertEquals(Duration.ofSeconds(5), MicroRunner.warmup("future", Duration.ofSeconds(1))); // the full preset
        assertEquals(Duration.ofSeconds(6), MicroRunner.warmup("future", Duration.ofSeconds(6)));
        assertEquals(Duration.ofMillis(400), MicroRunner.warmup("callsoon", Duration.ofMillis(400)));
        assertTrue(Compare.pairing(CompareOptions.parse()).contains("400 ms warm-up each (futures: 5000 ms;"),
                Compare.pairing(CompareOptions.parse()));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void contendersInProcessesOfTheirOwnTakeTurnsAndArePairedByRound(@TempDir Path dir) throws Exception {
        CompareOptions o = CompareOptions.parse("--warmup", "100ms", "--duration", "50ms", "--rounds", "3",
                "--workloads", "callsoon", "--backends", "select", "--no-pin");
        MicroRunner.Plan plan = new MicroRunner.Plan(List.of("select"), List.of("heap"), List.of("heap"),
                List.of("nio"), o.pending(), false, true);
        Results results = new Results();
        Progress progress = new Progress(new PrintStream(new ByteArrayOutputStream()), 1);
        MicroRunner runner = new MicroRunner(o, progress, dir, dir);
        runner.run(MicroRunner.contenders(o, dir, MicroRunner.cases(o, plan), false), results);
        List<Row> rows = results.rowsOf("callSoon in-loop");
        assertEquals(2, rows.size());
        for (Row r : rows) {
            assertTrue(r.measured(), r.toString());
            assertEquals(3, r.samples().size(), r.toString());
        }
        assertEquals(3, results.ratio(rows.get(0), rows.get(1)).n());
        assertTrue(results.pairing("callSoon in-loop").contains("3 rounds"));
    }
}
