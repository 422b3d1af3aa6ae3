package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableFormatterTest {

    @Test
    void ratiosAreToTheBestPeerByMedian() {
        Results r = Fixtures.sample();
        Row ours = r.rowsOf("callSoon in-loop").get(0);
        assertEquals("loop select/heap", ours.contender());
        assertEquals(190e6, ours.median());
        assertEquals("netty epoll", r.bestPeer("callSoon in-loop").orElseThrow().contender());
        assertEquals(190.0 / 60.0, r.ratioToBestPeer(ours).median(), 1e-9);
    }

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals(2.5, Row.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertTrue(Double.isNaN(Row.median(List.of())));
    }

    @Test
    void textTableHasEveryRowOursFirstWithRatiosSpreadAndNotes() {
        String t = TableFormatter.text(Fixtures.sample());
        String[] lines = t.split("\n");
        assertTrue(lines[0].startsWith("workload"), t);
        assertTrue(t.contains("loop select/heap *"), t);
        assertTrue(t.contains("190 M callbacks/s"), t);
        assertTrue(t.contains("3.17x"), t);          // 190 / 60
        assertTrue(t.contains("1.00x (best)"), t);   // netty epoll
        assertTrue(t.contains("0.75x"), t);          // netty nio: 45 / 60
        assertTrue(t.contains("+-5%"), t);           // (200 - 180) / 2 / 190
        assertTrue(t.contains("n/a (no sockets)"), t);
        assertTrue(t.contains("27.5 us / 48.0 us"), t);
        assertTrue(t.contains("0.90 / 0.70"), t);
        assertTrue(t.contains("1 run"), t);          // uvloop: a single sample has no spread
        // ours before peers inside a workload, workload names once
        assertTrue(t.indexOf("loop select/heap *") < t.indexOf("netty nio"), t);
        assertEquals(1, t.split("callSoon in-loop", -1).length - 1, t);
    }

    @Test
    void columnsAreAligned() {
        String[] lines = TableFormatter.text(Fixtures.sample()).split("\n");
        int contenderColumn = lines[0].indexOf("contender");
        for (String l : lines) {
            if (l.contains("netty nio")) {
                assertEquals(contenderColumn, l.indexOf("netty nio"), l);
            }
        }
    }

    @Test
    void markdownHasOneLinePerRowPlusHeader() {
        String md = TableFormatter.markdown(Fixtures.sample());
        assertEquals(2 + 6, md.lines().filter(l -> l.startsWith("|")).count(), md);
        assertTrue(md.contains("confidence interval"), md); // the legend follows the table
        assertTrue(md.startsWith("| workload | contender |"), md);
    }

    @Test
    void siFormatting() {
        assertEquals("186 M", Format.si(186.2e6));
        assertEquals("12.5 k", Format.si(12_499));
        assertEquals("2.02 M", Format.si(2_020_000));
        assertEquals("950", Format.si(950));
        assertEquals("-", Format.si(Double.NaN));
        assertEquals("1.50x", Format.ratio(1.5));
        assertEquals("23.1x", Format.ratio(23.07));
        assertEquals("1,737 us", Format.micros(1736.8));
    }

    @Test
    void oursShowTheirLoopsBusyRatioAndLagAndPeersADash() {
        Results r = new Results();
        r.add(new Row("http", "http plaintext, 1 conn", "loop epoll/heap", Row.Side.OURS, "requests/s",
                List.of(10_000.0, 11_000.0), 50, 90, 0.5, 0.6, null, 2e-6, null, 0.431, 12_500, List.of(2e-6, 2e-6)));
        r.add(new Row("http", "http plaintext, 1 conn", "nginx", Row.Side.PEER, "requests/s",
                List.of(9_000.0, 9_500.0), 50, 90, 0.5, 0.6, null, 3e-6, null));
        List<List<String>> cells = TableFormatter.cells(r);
        int busy = TableFormatter.HEADER.indexOf("loop busy");
        int lag = TableFormatter.HEADER.indexOf("lag p99");
        assertEquals("43%", cells.get(0).get(busy));
        assertEquals("12.5 us", cells.get(0).get(lag));
        assertEquals("-", cells.get(1).get(busy));
        assertEquals("-", cells.get(1).get(lag));
        assertTrue(TableFormatter.markdown(r).contains("| 43% | 12.5 us |"), TableFormatter.markdown(r));
        assertTrue(JsonWriter.write(r, List.of()).contains("\"loopBusyRatio\": 0.431, \"loopLagP99Nanos\": 12500"),
                JsonWriter.write(r, List.of()));
    }
}
