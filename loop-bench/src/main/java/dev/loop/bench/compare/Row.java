package dev.loop.bench.compare;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One contender measured on one workload: the score of every measured iteration (higher is
 * better), and for server workloads the latency percentiles, CPU use and system calls. When the
 * workload was measured in rounds ({@link Results#pairing}), sample i is round i's. A contender
 * that could not run has no samples and a note saying why; it stays in the table as such.
 *
 * @param group      the workload family, as {@code --workloads} names it ("callsoon", "echo"...)
 * @param workload   what was measured, e.g. "timers fire, 1M pending"
 * @param contender  who, e.g. "loop select/heap", "netty nio", "python uvloop"
 * @param side       ours or a peer
 * @param unit       what one score counts per second, e.g. "callbacks/s", "MB/s"
 * @param samples    one score per measured window, in round order
 * @param p50Micros  median round-trip latency in microseconds, NaN where it does not apply
 * @param p99Micros  99th percentile round-trip latency in microseconds, NaN where it does not apply
 * @param clientCpu  CPU the load generator used, in cores, NaN where it does not apply
 * @param serverCpu  CPU the server under test used, in cores, NaN where it does not apply
 * @param note       why there are no samples, or a remark on the figures; null when none
 * @param cpuPerOp   server CPU seconds per operation (message, request), median over rounds; NaN where it does not apply
 * @param syscalls   the server's system calls per operation, null where they do not apply
 * @param loopBusy   our server's loops' busy ratio over the measured windows (0 to 1), median over
 *                   rounds; NaN for a peer or with metrics off
 * @param loopLagP99Nanos our server's loops' scheduling-lag p99 over the measured windows, in
 *                   nanoseconds, median over rounds; NaN for a peer or with metrics off
 * @param cpuPerOpSamples server CPU seconds per operation in each round, in round order (empty
 *                   where not measured): for CPU ratios paired round by round
 */
public record Row(String group, String workload, String contender, Side side, String unit, List<Double> samples,
                  double p50Micros, double p99Micros, double clientCpu, double serverCpu, String note,
                  double cpuPerOp, Syscalls syscalls, double loopBusy, double loopLagP99Nanos,
                  List<Double> cpuPerOpSamples) {

    public enum Side {
        OURS, PEER;

        public String label() {
            return this == OURS ? "ours" : "peer";
        }
    }

    public Row {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(contender, "contender");
        Objects.requireNonNull(side, "side");
        Objects.requireNonNull(unit, "unit");
        samples = List.copyOf(samples);
        cpuPerOpSamples = List.copyOf(cpuPerOpSamples);
    }

    /** A row without the loop's own figures. */
    public Row(String group, String workload, String contender, Side side, String unit, List<Double> samples,
               double p50Micros, double p99Micros, double clientCpu, double serverCpu, String note,
               double cpuPerOp, Syscalls syscalls) {
        this(group, workload, contender, side, unit, samples, p50Micros, p99Micros, clientCpu, serverCpu, note,
                cpuPerOp, syscalls, Double.NaN, Double.NaN, List.of());
    }

    /** A row without per-operation figures. */
    public Row(String group, String workload, String contender, Side side, String unit, List<Double> samples,
               double p50Micros, double p99Micros, double clientCpu, double serverCpu, String note) {
        this(group, workload, contender, side, unit, samples, p50Micros, p99Micros, clientCpu, serverCpu, note,
                Double.NaN, null);
    }

    /** A micro benchmark's row: scores only. */
    public static Row of(String group, String workload, String contender, Side side, String unit, List<Double> samples) {
        return new Row(group, workload, contender, side, unit, samples, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                null);
    }

    /** A contender that could not run here, and why ("n/a (no sockets)", "skipped: ..."). */
    public static Row unavailable(String group, String workload, String contender, Side side, String unit, String why) {
        return new Row(group, workload, contender, side, unit, List.of(), Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, why);
    }

    public Row withNote(String n) {
        return new Row(group, workload, contender, side, unit, samples, p50Micros, p99Micros, clientCpu, serverCpu, n,
                cpuPerOp, syscalls, loopBusy, loopLagP99Nanos, cpuPerOpSamples);
    }

    /** The same row with other samples. */
    public Row withSamples(List<Double> other) {
        return new Row(group, workload, contender, side, unit, other, p50Micros, p99Micros, clientCpu, serverCpu, note,
                cpuPerOp, syscalls, loopBusy, loopLagP99Nanos, cpuPerOpSamples);
    }

    public boolean measured() {
        return !samples.isEmpty();
    }

    /** The median score with its confidence interval ({@link Rounds#estimate}). */
    public Rounds.Estimate estimate() {
        return Rounds.estimate(samples);
    }

    /** Whether the loop's own figures were read (ours, metrics on). */
    public boolean hasLoopMetrics() {
        return !Double.isNaN(loopBusy);
    }

    public boolean hasLatency() {
        return !Double.isNaN(p50Micros);
    }

    /** The median of the samples (the mean of the middle two for an even count); NaN without samples. */
    public double median() {
        return median(samples);
    }

    public double min() {
        return samples.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    public double max() {
        return samples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
