package dev.loop.bench.compare;

import java.util.ArrayList;
import java.util.List;

/**
 * The side-by-side table: per workload, ours then the peers, with the median score, its spread over
 * the iterations, the ratio to the best peer, and latency and CPU where they apply. Plain text
 * for the terminal, Markdown for the docs.
 */
public final class TableFormatter {
    static final List<String> HEADER = List.of("workload", "contender", "score (median)", "spread", "vs best peer",
            "p50 / p99", "CPU srv/cli", "note");

    private TableFormatter() {
    }

    /** The cells of every row, in table order. */
    static List<List<String>> cells(Results results) {
        List<List<String>> out = new ArrayList<>();
        for (String w : results.workloads()) {
            String best = results.bestPeer(w).map(Row::contender).orElse(null);
            for (Row r : results.rowsOf(w)) {
                List<String> c = new ArrayList<>();
                c.add(w);
                c.add(r.contender() + (r.side() == Row.Side.OURS ? " *" : ""));
                c.add(r.measured() ? Format.si(r.median()) + " " + r.unit() : "n/a");
                c.add(Format.spread(r));
                double ratio = results.ratioToBestPeer(r);
                c.add(Double.isNaN(ratio) ? "-"
                        : Format.ratio(ratio) + (r.contender().equals(best) ? " (best)" : ""));
                c.add(r.hasLatency() ? Format.micros(r.p50Micros()) + " / " + Format.micros(r.p99Micros()) : "-");
                c.add(Double.isNaN(r.serverCpu()) && Double.isNaN(r.clientCpu()) ? "-"
                        : Format.cores(r.serverCpu()) + " / " + Format.cores(r.clientCpu()));
                c.add(r.note() == null ? "" : r.note());
                out.add(c);
            }
        }
        return out;
    }

    /** Aligned columns; a workload's name is printed on its first row only. */
    public static String text(Results results) {
        List<List<String>> rows = cells(results);
        int[] width = new int[HEADER.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = HEADER.get(i).length();
        }
        for (List<String> r : rows) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        line(sb, HEADER, width);
        StringBuilder rule = new StringBuilder();
        for (int w : width) {
            rule.append("-".repeat(w)).append("  ");
        }
        sb.append(rule.toString().stripTrailing()).append('\n');
        String previous = null;
        for (List<String> r : rows) {
            List<String> shown = new ArrayList<>(r);
            if (r.get(0).equals(previous)) {
                shown.set(0, "");
            } else if (previous != null) {
                sb.append('\n');
            }
            previous = r.get(0);
            line(sb, shown, width);
        }
        sb.append("\n* ours. Scores are per second, median of the measured iterations; spread = half the range"
                + " (max - min) over the median; vs best peer = median / the best peer's median.\n");
        return sb.toString();
    }

    private static void line(StringBuilder sb, List<String> cells, int[] width) {
        StringBuilder l = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            // numbers read better right-aligned
            boolean right = i >= 2 && i <= 4;
            l.append(right ? " ".repeat(width[i] - c.length()) + c : c + " ".repeat(width[i] - c.length()));
            l.append("  ");
        }
        sb.append(l.toString().stripTrailing()).append('\n');
    }

    /** The same table in Markdown, for docs/BENCHMARKS.md. */
    public static String markdown(Results results) {
        StringBuilder sb = new StringBuilder();
        sb.append("| ").append(String.join(" | ", HEADER)).append(" |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---|\n");
        for (List<String> r : cells(results)) {
            sb.append("| ").append(String.join(" | ", r.stream().map(s -> s.replace("|", "\\|")).toList()))
                    .append(" |\n");
        }
        return sb.toString();
    }
}
