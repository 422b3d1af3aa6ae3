package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundsTest {

    @Test
    void everyRoundHasEveryContenderOnceAndTheOrderRotates() {
        assertArrayEquals(new int[] {0, 1, 2}, Rounds.order(0, 3));
        assertArrayEquals(new int[] {1, 2, 0}, Rounds.order(1, 3));
        assertArrayEquals(new int[] {2, 0, 1}, Rounds.order(2, 3));
        assertArrayEquals(new int[] {0, 1, 2}, Rounds.order(3, 3));
        // over n rounds each contender takes every place exactly once
        int n = 5;
        int[][] seen = new int[n][n];
        for (int r = 0; r < n; r++) {
            int[] o = Rounds.order(r, n);
            assertEquals(n, java.util.Arrays.stream(o).distinct().count());
            for (int place = 0; place < n; place++) {
                seen[o[place]][place]++;
            }
        }
        for (int[] places : seen) {
            assertArrayEquals(new int[] {1, 1, 1, 1, 1}, places);
        }
        assertThrows(IllegalArgumentException.class, () -> Rounds.order(0, 0));
    }

    @Test
    void twoContendersAlternateABBA() {
        List<Integer> turns = new ArrayList<>();
        Rounds.run(4, 2, (round, i) -> turns.add(i));
        assertEquals(List.of(0, 1, 1, 0, 0, 1, 1, 0), turns);
    }

    @Test
    void turnsAreTakenRoundByRound() {
        List<String> turns = new ArrayList<>();
        Rounds.run(2, 3, (round, i) -> turns.add(round + ":" + i));
        assertEquals(List.of("0:0", "0:1", "0:2", "1:1", "1:2", "1:0"), turns);
    }

    @Test
    void theIntervalOfTheMedianComesFromOrderStatistics() {
        // with fewer than six values only the whole range covers the median with 95%
        assertEquals(1, Rounds.orderStatistic(5));
        assertEquals(1, Rounds.orderStatistic(8)); // [x2, x7] would cover only 93%
        assertEquals(2, Rounds.orderStatistic(9)); // [x2, x8]: 96.1%, the quick preset
        assertEquals(2, Rounds.orderStatistic(10)); // [x2, x9]: 97.9%
        assertEquals(3, Rounds.orderStatistic(12)); // [x3, x10]: 96.1%
        assertEquals(1, Rounds.orderStatistic(1));

        Rounds.Estimate e = Rounds.estimate(List.of(5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 6.0, 100.0));
        assertEquals(5.5, e.median());
        assertEquals(2.0, e.low());   // one outlier on each side is outside the interval
        assertEquals(9.0, e.high());
        assertEquals(10, e.n());
        assertEquals((9.0 - 2.0) / 2 / 5.5, e.relativeHalfWidth(), 1e-12);

        assertFalse(Rounds.estimate(List.of()).present());
        Rounds.Estimate one = Rounds.estimate(List.of(4.0));
        assertEquals(4.0, one.median());
        assertTrue(Double.isNaN(one.relativeHalfWidth()));
    }

    @Test
    void ratiosArePairedRoundByRoundSoASlowRoundHitsBothSides() {
        // the machine is busy in rounds 1 and 3: both contenders slow down by half there
        List<Double> ours = List.of(200.0, 100.0, 200.0, 100.0, 200.0, 100.0);
        List<Double> peer = List.of(100.0, 50.0, 100.0, 50.0, 100.0, 50.0);
        Rounds.Estimate paired = Rounds.pairedRatio(ours, peer);
        assertEquals(2.0, paired.median());
        assertEquals(2.0, paired.low());
        assertEquals(2.0, paired.high());
        // each side alone spreads by half its median: the noise the pairing takes out
        assertEquals(1.0 / 3, Rounds.estimate(ours).relativeHalfWidth(), 1e-12);
    }

    @Test
    void onlyRoundsBothMeasuredArePaired() {
        Rounds.Estimate e = Rounds.pairedRatio(List.of(3.0, 6.0, 9.0), List.of(1.0, 2.0));
        assertEquals(2, e.n());
        assertEquals(3.0, e.median());
        assertEquals(1, Rounds.pairedRatio(List.of(3.0, 6.0), List.of(1.0, 0.0)).n()); // a stalled round has no ratio
    }

    @Test
    void resultsPairRowsOfAPairedWorkloadAndFallBackToMediansOtherwise() {
        Results r = new Results();
        Row a = Row.of("g", "w", "loop select/heap", Row.Side.OURS, "ops/s", List.of(200.0, 100.0, 200.0, 100.0, 200.0));
        Row b = Row.of("g", "w", "netty nio", Row.Side.PEER, "ops/s", List.of(100.0, 50.0, 100.0, 50.0, 100.0));
        r.add(a);
        r.add(b);
        assertEquals(1, r.ratio(a, b).n()); // not paired: the ratio of medians, no interval
        r.pairing("w", "5 rounds");
        Rounds.Estimate e = r.ratio(a, b);
        assertEquals(5, e.n());
        assertEquals(2.0, e.low());
        assertEquals(2.0, e.high());
    }
}
