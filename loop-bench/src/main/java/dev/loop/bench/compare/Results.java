package dev.loop.bench.compare;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Everything one comparison run produced: facts about the run (machine, JDK, command, load) and
 * the rows, in the order measured. Thread-safe enough for one writer; read it when the run is over.
 */
public final class Results {
    private final Map<String, String> meta = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();
    private final Map<String, String> pairing = new LinkedHashMap<>();

    public synchronized void meta(String key, String value) {
        meta.put(key, value);
    }

    /**
     * Records that every row of {@code workload} was measured in the same rounds, as {@code how}
     * says, so its rows compare round by round.
     */
    public synchronized void pairing(String workload, String how) {
        pairing.put(workload, how);
    }

    /** How {@code workload}'s contenders were paired, or null if they were not. */
    public synchronized String pairing(String workload) {
        return pairing.get(workload);
    }

    public synchronized void add(Row row) {
        rows.add(row);
    }

    /** Puts {@code updated} where {@code old} was (a note added after the rows were measured). */
    public synchronized void replace(Row old, Row updated) {
        int i = rows.indexOf(old);
        if (i < 0) {
            throw new IllegalArgumentException("no such row: " + old.contender() + " on " + old.workload());
        }
        rows.set(i, updated);
    }

    public synchronized Map<String, String> meta() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(meta));
    }

    public synchronized List<Row> rows() {
        return List.copyOf(rows);
    }

    /** The workloads, in the order they were first measured. */
    public List<String> workloads() {
        Set<String> w = new LinkedHashSet<>();
        rows().forEach(r -> w.add(r.workload()));
        return List.copyOf(w);
    }

    /** One workload's rows: ours first, then the peers, each in the order measured. */
    public List<Row> rowsOf(String workload) {
        List<Row> out = new ArrayList<>();
        for (Row.Side side : Row.Side.values()) {
            for (Row r : rows()) {
                if (r.workload().equals(workload) && r.side() == side) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /** The peer with the highest median on {@code workload} among those {@code filter} accepts. */
    public Optional<Row> bestPeer(String workload, Predicate<Row> filter) {
        Row best = null;
        for (Row r : rowsOf(workload)) {
            if (r.side() == Row.Side.PEER && r.measured() && filter.test(r)
                    && (best == null || r.median() > best.median())) {
                best = r;
            }
        }
        return Optional.ofNullable(best);
    }

    public Optional<Row> bestPeer(String workload) {
        return bestPeer(workload, r -> true);
    }

    /** {@code row} against the best peer on the same workload ({@link #ratio}); none if either is missing. */
    public Rounds.Estimate ratioToBestPeer(Row row) {
        if (!row.measured()) {
            return Rounds.Estimate.NONE;
        }
        return bestPeer(row.workload()).map(p -> ratio(row, p)).orElse(Rounds.Estimate.NONE);
    }

    /**
     * {@code a} against {@code b}: the median of their per-round ratios with its confidence
     * interval when both were measured in the same rounds, else the ratio of their medians alone
     * (no interval).
     */
    public Rounds.Estimate ratio(Row a, Row b) {
        if (!a.measured() || !b.measured()) {
            return Rounds.Estimate.NONE;
        }
        if (a.workload().equals(b.workload()) && pairing(a.workload()) != null) {
            return Rounds.pairedRatio(a.samples(), b.samples());
        }
        double r = a.median() / b.median();
        return new Rounds.Estimate(r, r, r, 1);
    }
}
