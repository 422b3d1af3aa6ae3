package dev.loop.bench.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The side-by-side table: per workload, ours then the peers, with the median score and its
 * interval, the median of the per-round ratios to the best peer and its interval, and for server
 * workloads latency, CPU, CPU per operation and system calls per operation. Plain text for the
 * terminal, Markdown for the docs.
 */
public final class TableFormatter {
    static final List<String> HEADER = List.of("workload", "contender", "score (median)", "+-", "vs best peer", "+-",
            "p50 / p99", "CPU srv/cli", "srv CPU/op", "syscalls/op", "loop busy", "lag p99", "note");
    /** Columns holding numbers, right-aligned. */
    static final int FIRST_NUMBER = 2;
    static final int LAST_NUMBER = 11;

    private TableFormatter() {
    }

    /** The cells of every row, in table order; {@code detailed} puts the system call breakdown in. */
    static List<List<String>> cells(Results results, boolean detailed) {
        List<List<String>> out = new ArrayList<>();
        for (String w : results.workloads()) {
            String best = results.bestPeer(w).map(Row::contender).orElse(null);
            for (Row r : results.rowsOf(w)) {
                List<String> c = new ArrayList<>();
                c.add(w);
                c.add(r.contender() + (r.side() == Row.Side.OURS ? " *" : ""));
                c.add(r.measured() ? Format.si(r.median()) + " " + r.unit() : "n/a");
                c.add(Format.interval(r.estimate()));
                Rounds.Estimate ratio = results.ratioToBestPeer(r);
                boolean isBest = r.contender().equals(best);
                c.add(!ratio.present() ? "-" : Format.ratio(ratio.median()) + (isBest ? " (best)" : ""));
                c.add(!ratio.present() || isBest ? "-" : Format.interval(ratio));
                c.add(r.hasLatency() ? Format.micros(r.p50Micros()) + " / " + Format.micros(r.p99Micros()) : "-");
                c.add(Double.isNaN(r.serverCpu()) && Double.isNaN(r.clientCpu()) ? "-"
                        : Format.cores(r.serverCpu()) + " / " + Format.cores(r.clientCpu()));
                c.add(Format.nanos(r.cpuPerOp()));
                c.add(r.syscalls() == null || !r.syscalls().measured() ? "-" : detailed ? r.syscalls().describe()
                        : String.format(Locale.ROOT, "%.2f", r.syscalls().perOp()));
                c.add(r.hasLoopMetrics() ? Format.percent(r.loopBusy()) : "-");
                c.add(Format.micros(r.loopLagP99Nanos() / 1e3));
                String note = r.note() == null ? "" : r.note();
                if (r.measured() && r.syscalls() != null && !r.syscalls().measured() && r.syscalls().note() != null
                        && !r.syscalls().note().equals("-")) {
                    note = (note.isEmpty() ? "" : note + "; ") + "syscalls " + r.syscalls().note();
                }
                c.add(note);
                out.add(c);
            }
        }
        return out;
    }

    static List<List<String>> cells(Results results) {
        return cells(results, true);
    }

    /** What the columns mean and how the contenders were paired: under every table. */
    static String legend(Results results) {
        String pairing = results.meta().get("pairing");
        return "* ours. Scores are per second, the median over the rounds; +- is half the "
                + String.format(Locale.ROOT, "%.0f", Rounds.CONFIDENCE * 100)
                + "% confidence interval of that median (order statistics), over the median. vs best peer: the median"
                + " of the per-round ratios to the peer with the highest median, +- likewise. srv CPU/op: server CPU"
                + " time per message, median over the rounds; syscalls/op: every system call of the server's threads"
                + " (a JVM's JIT compiler threads aside) per message, counted with strace over a burst of its own."
                + " loop busy, lag p99: our server's loops over the measured windows (Loop.metrics() at each"
                + " window's start and end, summed over a group's loops): the share of time they worked, and the"
                + " 99th percentile of how long a ready callback waited; median over the rounds, - for a peer.\n"
                + (pairing == null ? "" : "Pairing: " + pairing + ".\n");
    }

    /** Aligned columns; a workload's name is printed on its first row only. */
    public static String text(Results results) {
        List<List<String>> rows = cells(results, false);
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
        sb.append('\n').append(legend(results));
        return sb.toString();
    }

    private static void line(StringBuilder sb, List<String> cells, int[] width) {
        StringBuilder l = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            // numbers read better right-aligned
            boolean right = i >= FIRST_NUMBER && i <= LAST_NUMBER;
            l.append(right ? " ".repeat(width[i] - c.length()) + c : c + " ".repeat(width[i] - c.length()));
            l.append("  ");
        }
        sb.append(l.toString().stripTrailing()).append('\n');
    }

    /** The same table in Markdown, for docs/BENCHMARKS.md. */
    public static String markdown(Results results) {
        StringBuilder sb = new StringBuilder();
        sb.append("| ").append(String.join(" | ", HEADER)).append(" |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (List<String> r : cells(results, true)) {
            sb.append("| ").append(String.join(" | ", r.stream().map(s -> s.replace("|", "\\|")).toList()))
                    .append(" |\n");
        }
        sb.append('\n').append(legend(results));
        return sb.toString();
    }
}
