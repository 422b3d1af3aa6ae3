package dev.loop.bench.compare;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How contenders share the machine: in rounds. In each round every contender of a workload gets
 * one measured window, one after the other, so whatever else the two cores are doing at that
 * moment falls on all of them alike rather than on whoever happened to run then; the order
 * rotates from round to round, so no contender always follows the same neighbour or always goes
 * first. A row's scores are then aligned by round, and two rows are compared by the median of
 * their per-round ratios ({@link #pairedRatio}), with a confidence interval from order statistics
 * that needs no assumption about the noise's distribution.
 */
final class Rounds {
    /** Confidence level of the interval shown with every median (of scores or of ratios). */
    static final double CONFIDENCE = 0.95;

    private Rounds() {
    }

    /**
     * The order in which {@code contenders} take their turns in round {@code round} (from 0): the
     * contenders rotated by the round number. Over {@code contenders} rounds each one takes every
     * place once; with two contenders this is A B, B A, A B, ... (ABBA counterbalancing).
     */
    static int[] order(int round, int contenders) {
        if (contenders < 1 || round < 0) {
            throw new IllegalArgumentException("round " + round + " of " + contenders + " contenders");
        }
        int[] o = new int[contenders];
        for (int i = 0; i < contenders; i++) {
            o[i] = (round + i) % contenders;
        }
        return o;
    }

    /**
     * One turn: contender {@code index} measures its window of round {@code round}.
     *
     * @param <E> what a failed turn may throw
     */
    interface Turn<E extends Exception> {
        void take(int round, int index) throws E;
    }

    /** Runs {@code rounds} rounds of turns over {@code contenders}, each round in {@link #order}. */
    static <E extends Exception> void run(int rounds, int contenders, Turn<E> turn) throws E {
        for (int r = 0; r < rounds; r++) {
            for (int i : order(r, contenders)) {
                turn.take(r, i);
            }
        }
    }

    /**
     * The median of some values and a distribution-free confidence interval for it: the k-th
     * smallest and k-th largest value, with k the largest for which the interval still covers the
     * true median with probability {@link #CONFIDENCE} (binomial order statistics; with fewer than
     * six values it is the whole range, which covers it with 1 - 2/2^n).
     *
     * @param median the median (mean of the middle two for an even count)
     * @param low    lower end of the interval
     * @param high   upper end of the interval
     * @param n      how many values
     */
    record Estimate(double median, double low, double high, int n) {
        static final Estimate NONE = new Estimate(Double.NaN, Double.NaN, Double.NaN, 0);

        boolean present() {
            return n > 0;
        }

        /** Half the interval's width over the median: "+-4%". NaN with fewer than two values. */
        double relativeHalfWidth() {
            return n < 2 || median == 0 ? Double.NaN : (high - low) / 2 / Math.abs(median);
        }
    }

    static Estimate estimate(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).toArray();
        int n = v.length;
        if (n == 0) {
            return Estimate.NONE;
        }
        Arrays.sort(v);
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        int k = orderStatistic(n);
        return new Estimate(median, v[k - 1], v[n - k], n);
    }

    /**
     * The k (from 1) of the interval [x(k), x(n-k+1)] for the median of n values: the largest k
     * with 2 * P(Binomial(n, 1/2) <= k - 1) <= 1 - {@link #CONFIDENCE}, at least 1.
     */
    static int orderStatistic(int n) {
        double alpha = 1 - CONFIDENCE;
        int k = 1;
        double cdf = 0; // P(X <= j)
        double pj = Math.pow(0.5, n); // P(X = j)
        for (int j = 0; j < n / 2; j++) {
            cdf += pj;
            if (2 * cdf > alpha + 1e-12) {
                break;
            }
            k = j + 1;
            pj = pj * (n - j) / (j + 1);
        }
        return Math.min(k, (n + 1) / 2);
    }

    /**
     * {@code a} against {@code b} round by round: the ratio of their scores in each round both
     * measured, and the median of those ratios with its interval. Both lists are in round order;
     * a contender that failed part-way has fewer rounds, and only the rounds both have count.
     */
    static Estimate pairedRatio(List<Double> a, List<Double> b) {
        int n = Math.min(a.size(), b.size());
        List<Double> ratios = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            double x = a.get(i);
            double y = b.get(i);
            if (y > 0 && !Double.isNaN(x)) {
                ratios.add(x / y);
            }
        }
        return estimate(ratios);
    }
}
