package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TargetsTest {

    static Targets.Outcome find(List<Targets.Outcome> all, String prefix) {
        return all.stream().filter(o -> o.target().startsWith(prefix)).findFirst().orElseThrow();
    }

    @Test
    void metMissedAndNotMeasured() {
        Results r = Fixtures.sample();
        List<Targets.Outcome> t = Targets.evaluate(r);
        Targets.Outcome callSoon = find(t, "callSoon in-loop");
        assertEquals(Targets.Verdict.MET, callSoon.verdict()); // 190 / 60 = 3.17 >= 1.5
        assertTrue(callSoon.detail().startsWith("3.17x. callSoon in-loop: select/heap 3.17x vs netty epoll"), callSoon.detail());
        Targets.Outcome uv = find(t, "echo ping-pong: select >= 3x uvloop");
        assertEquals(Targets.Verdict.MISSED, uv.verdict()); // 32k / 40k
        assertTrue(uv.detail().contains("select/heap 0.80x vs python uvloop"), uv.detail());
        Targets.Outcome epoll = find(t, "echo: epoll >= Netty epoll");
        assertEquals(Targets.Verdict.NOT_MEASURED, epoll.verdict());
        assertEquals("not measured: loop epoll/heap: n/a (no sockets)", epoll.detail());
        assertEquals(Targets.Verdict.NOT_MEASURED, find(t, "future").verdict());
    }

    @Test
    void partlyWhenSomeContendersMeetIt() {
        Results r = new Results();
        r.add(Row.of("timers", "timers schedule+cancel, 1M pending", "loop select/heap", Row.Side.OURS, "timers/s",
                List.of(1e6)));
        r.add(Row.of("timers", "timers schedule+cancel, 1M pending", "loop select/wheel", Row.Side.OURS, "timers/s",
                List.of(4e6)));
        r.add(Row.of("timers", "timers schedule+cancel, 1M pending", "loop epoll/heap", Row.Side.OURS, "timers/s",
                List.of(1e6)));
        r.add(Row.of("timers", "timers schedule+cancel, 1M pending", "loop epoll/wheel", Row.Side.OURS, "timers/s",
                List.of(2e6)));
        r.add(Row.of("timers", "timers schedule+cancel, 1M pending", "netty nio schedule", Row.Side.PEER, "timers/s",
                List.of(1.5e6)));
        Targets.Outcome wheel = find(Targets.evaluate(r), "timers: wheel >= 3x heap");
        assertEquals(Targets.Verdict.PARTLY, wheel.verdict());
        assertEquals("2.00x to 4.00x (1 met, 1 missed). timers schedule+cancel, 1M pending: select/wheel 4.00x vs select/heap, "
                + "epoll/wheel 2.00x vs epoll/heap", wheel.detail());
        assertEquals(Targets.Verdict.PARTLY, find(Targets.evaluate(r), "timers >= Netty").verdict());
    }

    @Test
    void absoluteTargetsAndTheQueueAnchor() {
        Results r = new Results();
        r.add(Row.of("task-switch", "task switch", "loop select/heap", Row.Side.OURS, "switches/s", List.of(5e6)));
        r.add(Row.of("spawn", "task spawn", "loop select/heap", Row.Side.OURS, "tasks/s", List.of(1e6)));
        r.add(Row.of("queue", MicroRunner.QUEUE_WORKLOAD, "loop select/heap", Row.Side.OURS, "items/s", List.of(9e6)));
        List<Targets.Outcome> t = Targets.evaluate(r);
        Targets.Outcome sw = find(t, "task switch <= 300 ns");
        assertEquals(Targets.Verdict.MET, sw.verdict());
        assertTrue(sw.detail().contains("200 ns"), sw.detail());
        assertEquals(Targets.Verdict.MISSED, find(t, "task spawn").verdict());
        Targets.Outcome q = find(t, "queue");
        assertEquals(Targets.Verdict.MET, q.verdict()); // 9M / 839k = 10.7x
        assertTrue(q.detail().contains("anchor figure"), q.detail());
    }

    static Row overhead(String workload, String contender, List<Double> cpuPerOp) {
        return new Row(OverheadWorkloads.GROUP, workload, "loop epoll/heap" + contender, Row.Side.OURS, "msgs/s",
                List.of(1000.0, 1000.0, 1000.0, 1000.0, 1000.0), 1, 2, 0.1, 0.1, null, cpuPerOp.get(2), null, 0.5,
                1000, cpuPerOp);
    }

    @Test
    void metricsOverheadIsJudgedOnCpuPerOpAgainstMetricsOffRoundByRound() {
        Results r = new Results();
        String w = "overhead: echo";
        r.pairing(w, "5 rounds");
        r.add(overhead(w, OverheadWorkloads.OFF, List.of(10e-6, 11e-6, 10e-6, 12e-6, 10e-6)));
        // 1% more in every round: met
        r.add(overhead(w, OverheadWorkloads.ON, List.of(10.1e-6, 11.11e-6, 10.1e-6, 12.12e-6, 10.1e-6)));
        // 10% more in every round: missed against 1.05
        r.add(overhead(w, OverheadWorkloads.JFR, List.of(11e-6, 12.1e-6, 11e-6, 13.2e-6, 11e-6)));
        List<Targets.Outcome> t = Targets.evaluate(r);
        Targets.Outcome on = find(t, "metrics on: CPU per op");
        assertEquals(Targets.Verdict.MET, on.verdict(), on.detail());
        assertEquals("overhead: echo: 1.01x", on.detail());
        Targets.Outcome jfr = find(t, "metrics on + JFR");
        assertEquals(Targets.Verdict.MISSED, jfr.verdict(), jfr.detail());
        assertEquals("overhead: echo: 1.10x", jfr.detail());

        OverheadWorkloads.annotate(r);
        Row noted = r.rowsOf(w).stream().filter(x -> x.contender().endsWith(OverheadWorkloads.JFR)).findFirst()
                .orElseThrow();
        assertEquals("vs metrics off: msgs/s 1.00x, CPU/op 1.10x", noted.note());
        assertEquals(null, r.rowsOf(w).get(0).note(), "the reference itself gets no note");
    }
}
