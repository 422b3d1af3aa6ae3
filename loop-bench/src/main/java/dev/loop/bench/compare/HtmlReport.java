package dev.loop.bench.compare;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report a reader can look at: one horizontal bar chart per workload (inline SVG: median as the
 * bar, the range over iterations as a whisker, the best peer as a dashed line), the targets, and
 * the full table. Self-contained (no script, no fonts, nothing fetched) and well-formed XML, so it
 * opens anywhere and tests can parse it.
 */
public final class HtmlReport {
    static final int WIDTH = 1150;
    static final int LABEL = 240;
    static final int BAR_AREA = 380;
    static final int ROW = 24;
    static final String OURS_COLOR = "#2b6cb0";
    static final String PEER_COLOR = "#a0aec0";

    private HtmlReport() {
    }

    public static String render(Results results, List<Targets.Outcome> targets) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
                .append("<meta charset=\"utf-8\"/>\n<title>loop: backend comparison</title>\n<style>\n")
                .append("body { font-family: sans-serif; margin: 24px; color: #1a202c; max-width: 1200px; }\n")
                .append("h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #cbd5e0; }\n")
                .append("h3 { font-size: 14px; margin: 14px 0 2px 0; }\n")
                .append("table { border-collapse: collapse; font-size: 12px; }\n")
                .append("td, th { border: 1px solid #e2e8f0; padding: 3px 6px; text-align: left; vertical-align: top; }\n")
                .append("td.num { text-align: right; white-space: nowrap; }\n")
                .append("tr.ours td { background: #ebf4ff; }\n")
                .append(".met { color: #276749; font-weight: bold; } .missed { color: #c53030; font-weight: bold; }\n")
                .append(".partly { color: #b7791f; font-weight: bold; } .na { color: #718096; }\n")
                .append(".noise { color: #4a5568; font-weight: bold; font-style: italic; }\n")
                .append("td.met, td.missed, td.partly, td.noise, td.na { white-space: nowrap; }\n")
                .append("svg text { font-size: 12px; font-family: sans-serif; }\n")
                .append(".legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; }\n")
                .append("</style>\n</head>\n<body>\n");
        sb.append("<h1>loop: backend comparison</h1>\n");
        sb.append("<table class=\"meta\">\n");
        for (Map.Entry<String, String> e : results.meta().entrySet()) {
            if (e.getKey().equals("pairing")) {
                continue; // a paragraph of its own below
            }
            sb.append("<tr><th>").append(esc(e.getKey())).append("</th><td>").append(esc(e.getValue()))
                    .append("</td></tr>\n");
        }
        sb.append("</table>\n");
        sb.append("<p class=\"legend\">Bars: median over the rounds, higher is better.")
                .append("<span style=\"background:").append(OURS_COLOR).append("\"></span>ours")
                .append("<span style=\"background:").append(PEER_COLOR).append("\"></span>peers")
                .append(" Whisker: lowest to highest round. Dashed line: the best peer. Ratio: the median of the"
                        + " per-round ratios to the best peer, +- its confidence interval. Per message: server CPU time"
                        + " and system calls. Ours: the loops' busy ratio and scheduling-lag p99 over the windows.</p>\n");
        String pairing = results.meta().get("pairing");
        if (pairing != null) {
            sb.append("<p class=\"pairing\"><b>Pairing.</b> ").append(esc(pairing)).append(".</p>\n");
        }

        sb.append("<h2>Targets</h2>\n<table class=\"targets\">\n<tr><th>target</th><th>verdict</th><th>figures</th></tr>\n");
        for (Targets.Outcome t : targets) {
            sb.append("<tr><td>").append(esc(t.target())).append("</td><td class=\"").append(css(t.verdict()))
                    .append("\">").append(esc(t.verdict().label())).append("</td><td>").append(esc(t.detail()))
                    .append("</td></tr>\n");
        }
        sb.append("</table>\n");

        Map<String, List<String>> byGroup = new LinkedHashMap<>();
        for (Row r : results.rows()) {
            List<String> ws = byGroup.computeIfAbsent(r.group(), g -> new java.util.ArrayList<>());
            if (!ws.contains(r.workload())) {
                ws.add(r.workload());
            }
        }
        for (Map.Entry<String, List<String>> g : byGroup.entrySet()) {
            sb.append("<h2>").append(esc(g.getKey())).append("</h2>\n");
            for (String w : g.getValue()) {
                sb.append("<h3>").append(esc(w)).append("</h3>\n");
                chart(sb, results, w);
            }
        }

        sb.append("<h2>Table</h2>\n<table class=\"results\">\n<tr>");
        for (String h : TableFormatter.HEADER) {
            sb.append("<th>").append(esc(h)).append("</th>");
        }
        sb.append("</tr>\n");
        List<List<String>> cells = TableFormatter.cells(results);
        List<Row> order = results.workloads().stream().flatMap(w -> results.rowsOf(w).stream()).toList();
        for (int i = 0; i < cells.size(); i++) {
            sb.append("<tr class=\"").append(order.get(i).side() == Row.Side.OURS ? "ours" : "peer").append("\">");
            List<String> c = cells.get(i);
            for (int j = 0; j < c.size(); j++) {
                sb.append(j >= TableFormatter.FIRST_NUMBER && j <= TableFormatter.LAST_NUMBER ? "<td class=\"num\">"
                        : "<td>").append(esc(c.get(j))).append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</table>\n<p class=\"legend\">").append(esc(TableFormatter.legend(results).trim()))
                .append("</p>\n</body>\n</html>\n");
        return sb.toString();
    }

    private static String css(Targets.Verdict v) {
        return switch (v) {
            case MET -> "met";
            case MISSED -> "missed";
            case PARTLY -> "partly";
            case WITHIN_NOISE -> "noise";
            case NOT_MEASURED -> "na";
        };
    }

    /** One workload's chart: a row per contender. */
    static void chart(StringBuilder sb, Results results, String workload) {
        List<Row> rows = results.rowsOf(workload);
        double top = rows.stream().filter(Row::measured).mapToDouble(Row::max).max().orElse(1);
        if (top <= 0) {
            top = 1;
        }
        double best = results.bestPeer(workload).map(Row::median).orElse(Double.NaN);
        int height = rows.size() * ROW + 8;
        sb.append(String.format(Locale.ROOT,
                "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
                        + "data-workload=\"%s\">\n", WIDTH, height, esc(workload)));
        sb.append("<title>").append(esc(workload)).append("</title>\n");
        int y = 4;
        for (Row r : rows) {
            boolean ours = r.side() == Row.Side.OURS;
            sb.append(String.format(Locale.ROOT, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>%s</text>\n",
                    LABEL - 8, y + 16, ours ? " font-weight=\"bold\"" : "", esc(r.contender())));
            if (!r.measured()) {
                sb.append(String.format(Locale.ROOT,
                        "<text class=\"na\" x=\"%d\" y=\"%d\" fill=\"#718096\" font-style=\"italic\">%s</text>\n",
                        LABEL, y + 16, esc(r.note() == null ? "n/a" : r.note())));
                y += ROW;
                continue;
            }
            double w = Math.max(1, r.median() / top * BAR_AREA);
            sb.append(String.format(Locale.ROOT,
                    "<rect class=\"bar %s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                    ours ? "ours" : "peer", LABEL, y + 3, w, ROW - 6, ours ? OURS_COLOR : PEER_COLOR));
            double x1 = LABEL + r.min() / top * BAR_AREA;
            double x2 = LABEL + r.max() / top * BAR_AREA;
            int mid = y + ROW / 2;
            sb.append(String.format(Locale.ROOT,
                    "<path class=\"whisker\" d=\"M%.1f %dH%.1fM%.1f %dV%dM%.1f %dV%d\" stroke=\"#1a202c\" "
                            + "stroke-width=\"1\" fill=\"none\"/>\n",
                    x1, mid, x2, x1, mid - 4, mid + 4, x2, mid - 4, mid + 4));
            Rounds.Estimate ratio = results.ratioToBestPeer(r);
            StringBuilder label = new StringBuilder(Format.si(r.median()) + " " + r.unit());
            if (ratio.present()) {
                label.append("   ").append(Format.ratio(ratio.median()));
                if (!Double.isNaN(ratio.relativeHalfWidth()) && ratio.relativeHalfWidth() > 0) {
                    label.append(' ').append(Format.interval(ratio));
                }
            }
            if (r.hasLatency()) {
                label.append("   p99 ").append(Format.micros(r.p99Micros()));
            }
            if (!Double.isNaN(r.cpuPerOp())) {
                label.append("   CPU/op ").append(Format.nanos(r.cpuPerOp()));
            }
            if (r.syscalls() != null && r.syscalls().measured()) {
                label.append(String.format(Locale.ROOT, "   %.2f syscalls/op", r.syscalls().perOp()));
            }
            if (r.hasLoopMetrics()) {
                label.append("   loop busy ").append(Format.percent(r.loopBusy())).append(", lag p99 ")
                        .append(Format.micros(r.loopLagP99Nanos() / 1e3));
            }
            if (r.note() != null) {
                // the table has the whole note; the chart only flags it
                label.append("   (").append(r.note().startsWith("load generator near one core") ? "lower bound"
                        : r.note()).append(')');
            }
            sb.append(String.format(Locale.ROOT, "<text class=\"value\" x=\"%d\" y=\"%d\">%s</text>\n",
                    LABEL + BAR_AREA + 12, y + 16, esc(label.toString())));
            y += ROW;
        }
        if (!Double.isNaN(best)) {
            double x = LABEL + best / top * BAR_AREA;
            sb.append(String.format(Locale.ROOT,
                    "<line class=\"best-peer\" x1=\"%.1f\" y1=\"2\" x2=\"%.1f\" y2=\"%d\" stroke=\"#4a5568\" "
                            + "stroke-dasharray=\"4 3\"/>\n", x, x, height - 2));
        }
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"2\" x2=\"%d\" y2=\"%d\" stroke=\"#4a5568\"/>\n",
                LABEL, LABEL, height - 2));
        sb.append("</svg>\n");
    }

    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
