package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The server side of the compare command's loop probe: figures over the window only, none without a loop. */
class LoopProbeTest {
    private static final long MS = 1_000_000;

    @Test
    void aReportCoversOnlyTheWindowSinceTheMark() {
        ManualClock clock = ManualClock.autoAdvancing(); // a blocked poll moves the clock to the next timer
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select").withClock(clock))) {
            // before the window: 5 ms busy, and the stop waits that batch out (lag 5 ms)
            loop.execute(() -> {
                loop.execute(loop::stop);
                clock.advance(Duration.ofMillis(5));
            });
            loop.runForever();
            assertEquals(5 * MS, loop.metrics().schedulingLag().maxNanos());
            LoopProbe probe = new LoopProbe();
            assertEquals("LOOP marked", probe.answer(LoopProbe.MARK, List.of(loop)));

            // the window: 2 ms busy, then 6 ms waiting for the timer that stops the loop
            loop.execute(() -> clock.advance(Duration.ofMillis(2)));
            loop.callLater(Duration.ofMillis(8), loop::stop);
            loop.runForever();
            Map<String, String> r = LoopProbe.parse(probe.answer(LoopProbe.REPORT, List.of(loop)));

            assertEquals("1", r.get("loops"));
            assertEquals(0.25, Double.parseDouble(r.get("busy")), 1e-6, "2 ms of 8, the 5 ms before left out: " + r);
            assertTrue(Long.parseLong(r.get("lagP99Nanos")) < 5 * MS, "the 5 ms batch's lag was before the mark: " + r);
            assertTrue(Long.parseLong(r.get("cpuNanos")) >= 0, r.toString());
        }
    }

    @Test
    void withoutLoopsOrIterationsThereIsNoBusyRatio() {
        LoopProbe probe = new LoopProbe();
        probe.answer(LoopProbe.MARK, List.of());
        Map<String, String> peer = LoopProbe.parse(probe.answer(LoopProbe.REPORT, List.of()));
        assertTrue(peer.containsKey("cpuNanos"), peer.toString());
        assertFalse(peer.containsKey("busy"), peer.toString());

        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"))) {
            probe.answer(LoopProbe.MARK, List.of(loop));
            // the loop never ran in the window (as with -Dloop.metrics=false, every count stands still)
            Map<String, String> idle = LoopProbe.parse(probe.answer(LoopProbe.REPORT, List.of(loop)));
            assertEquals("0", idle.get("iterations"), idle.toString());
            assertFalse(idle.containsKey("busy"), "0 of 0 is not an idle loop: " + idle);
        }
    }

    @Test
    void aLoopWithMetricsOffHasNoBusyRatioThoughItRan() {
        String before = System.getProperty("loop.metrics");
        System.setProperty("loop.metrics", "false");
        Loop loop;
        try {
            loop = Loops.open(LoopOptions.defaults().withBackend("select"));
        } finally {
            if (before == null) {
                System.clearProperty("loop.metrics");
            } else {
                System.setProperty("loop.metrics", before);
            }
        }
        try (loop) {
            LoopProbe probe = new LoopProbe();
            probe.answer(LoopProbe.MARK, List.of(loop));
            loop.execute(loop::stop);
            loop.runForever();
            Map<String, String> r = LoopProbe.parse(probe.answer(LoopProbe.REPORT, List.of(loop)));
            assertFalse(r.containsKey("busy"), "metrics off reads 0 of 0, not an idle loop: " + r);
            assertFalse(r.containsKey("lagP99Nanos"), r.toString());
        }
    }

    @Test
    void theProcessCpuTimeIsFinerThanAClockTick() {
        assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/self/schedstat")),
                "Linux's per-thread run time is not readable here");
        long t0 = LoopProbe.processCpuNanos();
        long x = 0;
        long used = 0;
        // Spin in steps well under one 10 ms tick until the kernel has added this thread's run
        // time: it does so at its own scheduler events (a tick of its own clock, a switch), so a
        // single short spin may still read the old sum; the bound keeps a broken reader from
        // spinning forever.
        for (long limit = System.nanoTime() + 2_000_000_000L; used <= 0 && System.nanoTime() < limit; ) {
            for (long end = System.nanoTime() + 2_000_000; System.nanoTime() < end; ) {
                x++;
            }
            used = LoopProbe.processCpuNanos() - t0;
        }
        assertTrue(x > 0);
        assertTrue(used > 0 && used % 10_000_000 != 0, "not a multiple of a 10 ms tick: " + used);
    }

    @Test
    void anUnknownQuestionIsAnsweredAsSuch() {
        assertEquals(Map.of("unknown", "loop-what_now"),
                LoopProbe.parse(new LoopProbe().answer("loop-what now", List.of())));
        assertTrue(LoopProbe.parse("LISTENING 80").isEmpty());
    }
}
