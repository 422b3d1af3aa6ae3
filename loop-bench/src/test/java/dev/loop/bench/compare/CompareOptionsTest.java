package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompareOptionsTest {

    @Test
    void noArgumentsIsTheQuickPresetWithEverything() {
        CompareOptions o = CompareOptions.parse();
        assertFalse(o.full());
        assertEquals(CompareOptions.QUICK_WORKLOADS, o.workloads());
        assertFalse(o.runs("overhead") || o.runs("group"), "only when named, or in the full preset");
        assertTrue(CompareOptions.parse("--full").runs("overhead"));
        assertTrue(CompareOptions.parse("--full").runs("group"));
        assertTrue(CompareOptions.parse("--workloads", "overhead").runs("overhead"));
        assertTrue(o.backends().isEmpty());
        assertTrue(o.peers());
        assertEquals(Path.of("target", "compare"), o.out());
    }

    @Test
    void fullPresetMeasuresLongerAndWider() {
        CompareOptions q = CompareOptions.parse();
        CompareOptions f = CompareOptions.parse("--full");
        assertTrue(f.full());
        assertTrue(f.rounds() > q.rounds());
        assertTrue(f.iteration().compareTo(q.iteration()) > 0);
        assertEquals(List.of(1, 10, 100), f.connections());
        assertTrue(f.pending().contains(1_000_000));
    }

    @Test
    void optionsOverrideThePresetInEitherSpelling() {
        CompareOptions o = CompareOptions.parse("--full", "--workloads", "echo,callsoon", "--backends=select",
                "--timers", "Wheel,heap", "--duration", "1.5s", "--warmup=250ms", "--iterations", "7",
                "--connections", "1,10", "--stream-connections=4", "--pending", "10k,1m", "--no-peers", "--no-pin", "--no-strace",
                "--python", "/opt/py", "--out", "/tmp/x");
        assertEquals(List.of("callsoon", "echo"), o.workloads()); // canonical order
        assertEquals(List.of("select"), o.backends());
        assertEquals(List.of("wheel", "heap"), o.timers());
        assertEquals(Duration.ofMillis(1500), o.iteration());
        assertEquals(Duration.ofMillis(250), o.warmup());
        assertEquals(7, o.rounds());
        assertEquals(List.of(1, 10), o.connections());
        assertEquals(List.of(4), o.streamConnections());
        assertEquals(List.of(10_000, 1_000_000), o.pending());
        assertFalse(o.peers());
        assertFalse(o.pin());
        assertFalse(o.strace());
        assertEquals(9, CompareOptions.parse("--rounds=9").rounds());
        assertEquals("/opt/py", o.python());
        assertEquals(Path.of("/tmp/x"), o.out());
        assertTrue(o.full());
    }

    @Test
    void badInputIsRefusedWithAReason() {
        assertTrue(assertThrows(CompareOptions.UsageException.class, () -> CompareOptions.parse("--workloads", "nope"))
                .getMessage().contains("unknown workload 'nope'"));
        assertTrue(assertThrows(CompareOptions.UsageException.class, () -> CompareOptions.parse("--bogus"))
                .getMessage().contains("--bogus"));
        assertTrue(assertThrows(CompareOptions.UsageException.class, () -> CompareOptions.parse("--iterations", "0"))
                .getMessage().contains("at least 1"));
        assertTrue(assertThrows(CompareOptions.UsageException.class, () -> CompareOptions.parse("--duration"))
                .getMessage().contains("needs a value"));
        assertTrue(assertThrows(CompareOptions.UsageException.class, () -> CompareOptions.parse("--duration", "fast"))
                .getMessage().contains("duration"));
        assertTrue(assertThrows(CompareOptions.UsageException.class, () -> CompareOptions.parse("--connections", "x"))
                .getMessage().contains("number"));
    }

    @Test
    void durations() {
        assertEquals(Duration.ofMillis(500), CompareOptions.duration("d", "500ms"));
        assertEquals(Duration.ofSeconds(2), CompareOptions.duration("d", "2s"));
        assertEquals(Duration.ofSeconds(3), CompareOptions.duration("d", "3"));
        assertEquals(Duration.ofSeconds(90), CompareOptions.duration("d", "1.5m"));
    }

    @Test
    void theRecordedCommandIsOneThatCanBeRunAgain() {
        String mvn = "mvn -B -q -DskipTests -Pcompare verify";
        assertEquals(mvn, Compare.command(mvn, new String[0]));
        assertEquals(mvn + " -Dcompare.args=--full", Compare.command(mvn, new String[] {"--full"}));
        assertEquals(mvn + " \"-Dcompare.args=--full --out x\"", Compare.command(mvn, new String[] {"--full", "--out", "x"}));
        assertEquals("loop-bench/run.sh compare --full", Compare.command("loop-bench/run.sh compare", new String[] {"--full"}));
    }

    @Test
    void help() {
        assertTrue(CompareOptions.wantsHelp("--full", "--help"));
        assertFalse(CompareOptions.wantsHelp("--full"));
        assertTrue(CompareOptions.USAGE.contains("--workloads"));
    }
}
