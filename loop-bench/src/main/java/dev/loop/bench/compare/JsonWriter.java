package dev.loop.bench.compare;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The raw results as JSON: the run's facts, every row with every sample, and the targets. */
public final class JsonWriter {
    private JsonWriter() {
    }

    public static String write(Results results, List<Targets.Outcome> targets) {
        StringBuilder sb = new StringBuilder("{\n  \"meta\": {");
        boolean first = true;
        for (Map.Entry<String, String> e : results.meta().entrySet()) {
            sb.append(first ? "\n" : ",\n").append("    ").append(string(e.getKey())).append(": ")
                    .append(string(e.getValue()));
            first = false;
        }
        sb.append("\n  },\n  \"confidence\": ").append(number(Rounds.CONFIDENCE));
        sb.append(",\n  \"pairing\": {");
        first = true;
        for (String w : results.workloads()) {
            String how = results.pairing(w);
            if (how != null) {
                sb.append(first ? "\n" : ",\n").append("    ").append(string(w)).append(": ").append(string(how));
                first = false;
            }
        }
        sb.append("\n  },\n  \"rows\": [");
        first = true;
        for (Row r : results.rows()) {
            sb.append(first ? "\n" : ",\n").append("    {");
            sb.append("\"group\": ").append(string(r.group()));
            sb.append(", \"workload\": ").append(string(r.workload()));
            sb.append(", \"contender\": ").append(string(r.contender()));
            sb.append(", \"side\": ").append(string(r.side().label()));
            sb.append(", \"unit\": ").append(string(r.unit()));
            sb.append(", \"samples\": [");
            for (int i = 0; i < r.samples().size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(number(r.samples().get(i)));
            }
            Rounds.Estimate e = r.estimate();
            sb.append("], \"median\": ").append(number(r.median()));
            sb.append(", \"medianInterval\": ").append(interval(e));
            sb.append(", \"min\": ").append(number(r.min()));
            sb.append(", \"max\": ").append(number(r.max()));
            Rounds.Estimate ratio = results.ratioToBestPeer(r);
            sb.append(", \"bestPeer\": ").append(results.bestPeer(r.workload()).map(p -> string(p.contender()))
                    .orElse("null"));
            sb.append(", \"ratioToBestPeer\": ").append(number(ratio.median()));
            sb.append(", \"ratioInterval\": ").append(interval(ratio));
            sb.append(", \"p50Micros\": ").append(number(r.p50Micros()));
            sb.append(", \"p99Micros\": ").append(number(r.p99Micros()));
            sb.append(", \"serverCpuCores\": ").append(number(r.serverCpu()));
            sb.append(", \"clientCpuCores\": ").append(number(r.clientCpu()));
            sb.append(", \"serverCpuPerOpNanos\": ").append(number(r.cpuPerOp() * 1e9));
            sb.append(", \"serverCpuPerOpNanosPerRound\": [");
            for (int i = 0; i < r.cpuPerOpSamples().size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(number(r.cpuPerOpSamples().get(i) * 1e9));
            }
            sb.append("]");
            sb.append(", \"loopBusyRatio\": ").append(number(r.loopBusy()));
            sb.append(", \"loopLagP99Nanos\": ").append(number(r.loopLagP99Nanos()));
            Syscalls sc = r.syscalls();
            sb.append(", \"syscallsPerOp\": ").append(sc == null ? "null" : number(sc.perOp()));
            if (sc != null) {
                sb.append(", \"syscalls\": {");
                boolean f = true;
                for (Map.Entry<String, Double> x : sc.breakdown().entrySet()) {
                    sb.append(f ? "" : ", ").append(string(x.getKey())).append(": ").append(number(x.getValue()));
                    f = false;
                }
                sb.append("}, \"syscallsNote\": ").append(sc.note() == null ? "null" : string(sc.note()));
            }
            sb.append(", \"note\": ").append(r.note() == null ? "null" : string(r.note()));
            sb.append('}');
            first = false;
        }
        sb.append("\n  ],\n  \"targets\": [");
        first = true;
        for (Targets.Outcome t : targets) {
            sb.append(first ? "\n" : ",\n").append("    {\"target\": ").append(string(t.target()))
                    .append(", \"verdict\": ").append(string(t.verdict().label()))
                    .append(", \"detail\": ").append(string(t.detail())).append('}');
            first = false;
        }
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    /** [low, high] of an estimate's interval, or null. */
    static String interval(Rounds.Estimate e) {
        return e.present() ? "[" + number(e.low()) + ", " + number(e.high()) + "]" : "null";
    }

    /**
     * A JSON number with every digit the double has (its shortest exact decimal form, never an
     * exponent); NaN and infinities, which JSON cannot hold, become null.
     */
    static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "null";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return java.math.BigDecimal.valueOf(v).toPlainString();
    }

    static String string(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
