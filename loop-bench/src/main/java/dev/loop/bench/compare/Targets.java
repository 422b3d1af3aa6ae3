package dev.loop.bench.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * The performance targets other issues set, checked against one run. Each pair (ours against its
 * reference) is judged on the median of its per-round ratios and that median's confidence
 * interval ({@link Rounds}): met when the whole interval clears the target, missed when the whole
 * interval falls short, within noise when the interval straddles it, so a run on a noisy machine
 * does not call a tie one way or the other. A target with every pair met is met, with every pair
 * missed is missed, with every pair within noise is within noise, and partly met otherwise; a
 * target whose contenders did not run here is "not measured".
 */
public final class Targets {
    /** Python's asyncio.Queue(maxsize=128), 1 producer / 1 consumer, from the anchor measurements. */
    static final double ANCHOR_ASYNCIO_QUEUE_128 = 839_247;

    public enum Verdict {
        MET("met"), PARTLY("partly met"), WITHIN_NOISE("within noise"), MISSED("missed"),
        NOT_MEASURED("not measured");

        final String label;

        Verdict(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** One target: what it asks, the figures behind the verdict, the verdict. */
    public record Outcome(String target, String detail, Verdict verdict) {
    }

    private Targets() {
    }

    static Predicate<Row> contender(String prefix) {
        return r -> r.contender().startsWith(prefix);
    }

    static Predicate<Row> workload(String prefix) {
        return r -> r.workload().startsWith(prefix);
    }

    public static List<Outcome> evaluate(Results res) {
        List<Outcome> out = new ArrayList<>();
        out.add(ratio(res, "callSoon in-loop >= 1.5x Netty execute()", workload("callSoon in-loop"),
                contender("loop "), bestPeerOf(res, contender("netty ")), 1.5));
        out.add(ratio(res, "callSoon foreign >= 1.2x Netty execute()", workload("callSoon foreign"),
                contender("loop "), bestPeerOf(res, contender("netty ")), 1.2));
        out.add(ratio(res, "timers >= Netty scheduled tasks", workload("timers"),
                contender("loop "), bestPeerOf(res, r -> r.contender().startsWith("netty ")
                        && r.contender().endsWith(" schedule")), 1.0));
        // Completed on the loop thread, against thenAccept (which runs its callback inline); the
        // row completed off the loop is reported beside it with no target of its own.
        out.add(ratio(res, "future >= 1.5x CompletableFuture thenAccept", r -> r.workload().equals("future + callback"),
                contender("loop "), bestPeerOf(res, contender("jdk CompletableFuture thenAccept")), 1.5));
        out.add(absolute(res, "task switch <= 300 ns", workload("task switch"), r -> 1e9 / r.median(), 300, false,
                "%.0f ns"));
        out.add(ratio(res, "task switch >= 1.5x CompletableFuture thenCompose chain", workload("task switch"),
                contender("loop "), bestPeerOf(res, contender("jdk CompletableFuture")), 1.5));
        out.add(absolute(res, "task spawn >= 2M tasks/s", workload("task spawn"), Row::median, 2e6, true, "%s"));
        out.add(queue(res));
        Predicate<Row> echo = workload("echo");
        Predicate<Row> pingPong = workload("echo ping-pong");
        out.add(ratio(res, "echo: select >= Netty NIO", echo, contender("loop select/"),
                bestPeerOf(res, r -> r.contender().equals("netty nio")), 1.0));
        out.add(ratio(res, "echo ping-pong: select >= 3x uvloop", pingPong, contender("loop select/"),
                bestPeerOf(res, r -> r.contender().equals("python uvloop")), 3.0));
        out.add(ratio(res, "echo: epoll >= Netty epoll", echo, contender("loop epoll/"),
                bestPeerOf(res, r -> r.contender().equals("netty epoll")), 1.0));
        out.add(ratio(res, "echo: epoll >= 1.2x select", echo, contender("loop epoll/"),
                sameTimersOn(res, "select"), 1.2));
        out.add(ratio(res, "udp: epoll and io_uring >= Netty epoll", workload("udp echo"),
                r -> r.contender().startsWith("loop epoll/") || r.contender().startsWith("loop io_uring/"),
                bestPeerOf(res, r -> r.contender().equals("netty epoll")), 1.0));
        out.add(ratio(res, "timers: wheel >= 3x heap on schedule+cancel at 1M", workload("timers schedule+cancel, 1M"),
                r -> r.contender().startsWith("loop ") && r.contender().endsWith("/wheel"), heapTwin(res), 3.0));
        out.add(ratio(res, "redis: >= 0.9x redis-server", workload("redis "), contender("loop "),
                bestPeerOf(res, r -> r.contender().equals("redis-server")), 0.9));
        out.add(fasterAndLeaner(res, "HTTP plaintext: ours >= Netty's requests/s and <= its CPU per request",
                workload("http plaintext"), contender(ProtocolWorkloads.NETTY_HTTP + " ")));
        out.add(ratio(res, "timers: wheel >= Netty HashedWheelTimer", workload("timers"),
                r -> r.contender().startsWith("loop ") && r.contender().endsWith("/wheel"),
                bestPeerOf(res, contender("netty HashedWheelTimer")), 1.0));
        out.add(cpuAtMost(res, "metrics on: CPU per op <= 1.02x metrics off", OverheadWorkloads.GROUP,
                OverheadWorkloads.ON, OverheadWorkloads.OFF, 1.02));
        out.add(cpuAtMost(res, "metrics on + JFR recording: CPU per op <= 1.05x metrics off", OverheadWorkloads.GROUP,
                OverheadWorkloads.JFR, OverheadWorkloads.OFF, 1.05));
        return out;
    }

    /**
     * For every measured row of {@code group} named with {@code suffix}: its CPU per operation over
     * its twin's ({@link Comparisons}), round by round, at most {@code max}: met when the whole
     * interval is at or below it, missed when the whole interval is above.
     */
    static Outcome cpuAtMost(Results res, String target, String group, String suffix, String twinSuffix, double max) {
        List<String> parts = new ArrayList<>();
        Tally tally = new Tally();
        for (Row r : res.rows()) {
            if (!r.group().equals(group) || !r.measured()) {
                continue;
            }
            Optional<Row> twin = Comparisons.twin(res, r, suffix, twinSuffix);
            if (twin.isEmpty()) {
                continue;
            }
            Rounds.Estimate cpu = Comparisons.cpuRatio(r, twin.get());
            if (!cpu.present()) {
                continue;
            }
            tally.add(cpu.low(), cpu.high(), max, false);
            parts.add(r.workload() + ": " + withInterval(cpu));
        }
        return new Outcome(target, parts.isEmpty() ? "no contender and reference measured in this run"
                : (tally.mix().isEmpty() ? "" : tally.mix().substring(1) + ": ") + String.join("; ", parts),
                tally.verdict());
    }

    /** The best matching peer on the ours row's workload. */
    static BiFunction<Row, String, Optional<Row>> bestPeerOf(Results res, Predicate<Row> peer) {
        return (ours, w) -> res.bestPeer(w, peer);
    }

    /** The same timers on another backend: "loop epoll/heap" is compared with "loop select/heap". */
    static BiFunction<Row, String, Optional<Row>> sameTimersOn(Results res, String backend) {
        return (ours, w) -> {
            String timers = ours.contender().substring(ours.contender().indexOf('/') + 1);
            return find(res, w, "loop " + backend + "/" + timers);
        };
    }

    /** The same backend with heap timers: "loop select/wheel" is compared with "loop select/heap". */
    static BiFunction<Row, String, Optional<Row>> heapTwin(Results res) {
        return (ours, w) -> find(res, w, ours.contender().substring(0, ours.contender().indexOf('/')) + "/heap");
    }

    private static Optional<Row> find(Results res, String workload, String contender) {
        return res.rowsOf(workload).stream().filter(r -> r.contender().equals(contender) && r.measured()).findFirst();
    }

    /**
     * For every workload {@code workloads} accepts and every measured row of ours {@code ours}
     * accepts: its median over the reference's. Met when every pair meets {@code min}.
     */
    static Outcome ratio(Results res, String target, Predicate<Row> workloads, Predicate<Row> ours,
                         BiFunction<Row, String, Optional<Row>> reference, double min) {
        List<String> parts = new ArrayList<>();
        Tally tally = new Tally();
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        java.util.Map<String, List<String>> unmeasured = new java.util.LinkedHashMap<>();
        for (String w : res.workloads()) {
            List<String> items = new ArrayList<>();
            java.util.Set<String> refs = new java.util.LinkedHashSet<>();
            List<String[]> pairs = new ArrayList<>();
            for (Row r : res.rowsOf(w)) {
                if (r.side() != Row.Side.OURS || !workloads.test(r) || !ours.test(r)) {
                    continue;
                }
                if (!r.measured()) {
                    List<String> who = unmeasured.computeIfAbsent(String.valueOf(r.note()), k -> new ArrayList<>());
                    if (!who.contains(r.contender())) {
                        who.add(r.contender());
                    }
                    continue;
                }
                Optional<Row> ref = reference.apply(r, w);
                if (ref.isEmpty()) {
                    continue;
                }
                Rounds.Estimate ratio = res.ratio(r, ref.get());
                tally.add(ratio.low(), ratio.high(), min, true);
                lo = Math.min(lo, ratio.median());
                hi = Math.max(hi, ratio.median());
                refs.add(ref.get().contender());
                pairs.add(new String[] {shortName(r.contender()) + " " + withInterval(ratio), ref.get().contender()});
            }
            if (pairs.isEmpty()) {
                continue;
            }
            boolean oneRef = refs.size() == 1;
            for (String[] p : pairs) {
                items.add(oneRef ? p[0] : p[0] + " vs " + shortName(p[1]));
            }
            parts.add(w + ": " + String.join(", ", items) + (oneRef ? " vs " + refs.iterator().next() : ""));
        }
        StringBuilder detail = new StringBuilder();
        if (tally.total > 0) {
            String range = Format.ratio(lo).equals(Format.ratio(hi)) ? Format.ratio(lo) : Format.ratio(lo) + " to " + Format.ratio(hi);
            detail.append(range).append(tally.mix()).append(". ")
                    .append(String.join("; ", parts));
        }
        for (java.util.Map.Entry<String, List<String>> e : unmeasured.entrySet()) {
            detail.append(detail.length() == 0 ? "" : "; ").append("not measured: ")
                    .append(String.join(", ", e.getValue())).append(": ").append(e.getKey());
        }
        return new Outcome(target, detail.length() == 0 ? "no contender and reference measured in this run"
                : detail.toString(), tally.verdict());
    }

    /**
     * For every workload {@code workloads} accepts and every measured row of ours on it: its score
     * over the best {@code peer}'s (paired rounds, with the interval) must be at least 1, and its
     * server CPU per operation over the peer's at most 1. Each is one check in the tally. CPU per
     * operation is kept as a median per row, without per-round figures, so that check is a plain
     * ratio of medians: met or missed, never within noise.
     */
    static Outcome fasterAndLeaner(Results res, String target, Predicate<Row> workloads, Predicate<Row> peer) {
        List<String> parts = new ArrayList<>();
        List<String> unmeasured = new ArrayList<>();
        Tally tally = new Tally();
        for (String w : res.workloads()) {
            List<String> items = new ArrayList<>();
            String refName = null;
            for (Row r : res.rowsOf(w)) {
                if (r.side() != Row.Side.OURS || !workloads.test(r)) {
                    continue;
                }
                if (!r.measured()) {
                    unmeasured.add(r.contender() + " on " + w + ": " + r.note());
                    continue;
                }
                Optional<Row> ref = res.bestPeer(w, peer);
                if (ref.isEmpty()) {
                    continue;
                }
                refName = ref.get().contender();
                Rounds.Estimate speed = res.ratio(r, ref.get());
                tally.add(speed.low(), speed.high(), 1.0, true);
                double cpu = r.cpuPerOp() / ref.get().cpuPerOp();
                String cpuText;
                if (Double.isNaN(cpu)) {
                    cpuText = "CPU n/a";
                } else {
                    tally.add(cpu, cpu, 1.0, false);
                    cpuText = "CPU " + Format.ratio(cpu);
                }
                items.add(shortName(r.contender()) + " " + withInterval(speed) + " " + r.unit() + ", " + cpuText);
            }
            if (!items.isEmpty()) {
                parts.add(w + ": " + String.join(", ", items) + " vs " + refName);
            }
        }
        StringBuilder detail = new StringBuilder();
        if (tally.total > 0) {
            detail.append(tally.mix().isEmpty() ? "" : tally.mix().substring(2, tally.mix().length() - 1) + ". ")
                    .append(String.join("; ", parts));
        }
        if (!unmeasured.isEmpty()) {
            detail.append(detail.length() == 0 ? "" : "; ").append("not measured: ").append(String.join("; ", unmeasured));
        }
        return new Outcome(target, detail.length() == 0 ? "no contender and reference measured in this run"
                : detail.toString(), tally.verdict());
    }

    /** "1.62x (1.55-1.70)": a ratio with its interval, or alone when it has none. */
    static String withInterval(Rounds.Estimate e) {
        if (e.n() < 2 || Format.ratio(e.low()).equals(Format.ratio(e.high()))) {
            return Format.ratio(e.median());
        }
        return Format.ratio(e.median()) + " (" + Format.ratio(e.low()).replace("x", "") + "-" + Format.ratio(e.high())
                + ")";
    }

    /** Pairs judged so far: met, missed, or within noise. */
    static final class Tally {
        int total;
        int met;
        int missed;

        /** One pair, from its interval [low, high] against {@code bound} (at least, or at most). */
        void add(double low, double high, double bound, boolean atLeast) {
            total++;
            if (atLeast ? low >= bound : high <= bound) {
                met++;
            } else if (atLeast ? high < bound : low > bound) {
                missed++;
            }
        }

        int noise() {
            return total - met - missed;
        }

        Verdict verdict() {
            if (total == 0) {
                return Verdict.NOT_MEASURED;
            }
            if (met == total) {
                return Verdict.MET;
            }
            if (missed == total) {
                return Verdict.MISSED;
            }
            return noise() == total ? Verdict.WITHIN_NOISE : Verdict.PARTLY;
        }

        /** " (2 met, 1 within noise, 1 missed)" when the pairs disagree, else nothing. */
        String mix() {
            if (met == total || missed == total || noise() == total) {
                return "";
            }
            List<String> p = new ArrayList<>();
            if (met > 0) {
                p.add(met + " met");
            }
            if (noise() > 0) {
                p.add(noise() + " within noise");
            }
            if (missed > 0) {
                p.add(missed + " missed");
            }
            return " (" + String.join(", ", p) + ")";
        }
    }

    /** "loop select/heap" reads as "select/heap" where it is clearly ours. */
    static String shortName(String contender) {
        return contender.startsWith("loop ") ? contender.substring(5) : contender;
    }

    static Outcome absolute(Results res, String target, Predicate<Row> workloads, java.util.function.ToDoubleFunction<Row> value,
                            double bound, boolean atLeast, String format) {
        List<String> parts = new ArrayList<>();
        Tally tally = new Tally();
        for (Row r : res.rows()) {
            if (r.side() != Row.Side.OURS || !workloads.test(r) || !r.measured()) {
                continue;
            }
            Rounds.Estimate e = r.estimate();
            double v = value.applyAsDouble(r);
            // the interval of the score, through the same function (it may invert: ns per switch)
            double a = value.applyAsDouble(r.withSamples(List.of(e.low())));
            double b = value.applyAsDouble(r.withSamples(List.of(e.high())));
            tally.add(Math.min(a, b), Math.max(a, b), bound, atLeast);
            String shown = format.equals("%s") ? Format.si(v) + "/s" : String.format(Locale.ROOT, format, v);
            parts.add(r.contender() + " " + shown);
        }
        return new Outcome(target, parts.isEmpty() ? "no contender measured in this run"
                : (tally.mix().isEmpty() ? "" : tally.mix().substring(1) + ": ") + String.join("; ", parts),
                tally.verdict());
    }

    /** Queue: against Python's asyncio.Queue measured in this run, else the anchor figure. */
    static Outcome queue(Results res) {
        String target = "queue >= 10x Python asyncio.Queue";
        List<String> parts = new ArrayList<>();
        Tally tally = new Tally();
        for (Row r : res.rows()) {
            if (r.side() != Row.Side.OURS || !r.workload().startsWith("queue") || !r.measured()) {
                continue;
            }
            Optional<Row> live = res.bestPeer(r.workload(), x -> x.contender().equals("python asyncio"));
            Rounds.Estimate ratio;
            if (live.isPresent()) {
                ratio = res.ratio(r, live.get());
            } else {
                Rounds.Estimate e = r.estimate();
                double a = ANCHOR_ASYNCIO_QUEUE_128;
                ratio = new Rounds.Estimate(e.median() / a, e.low() / a, e.high() / a, e.n());
            }
            tally.add(ratio.low(), ratio.high(), 10, true);
            parts.add(r.contender() + " " + withInterval(ratio) + " python asyncio" + (live.isPresent() ? ""
                    : " (anchor figure " + Format.si(ANCHOR_ASYNCIO_QUEUE_128) + "/s, not measured here)"));
        }
        return new Outcome(target, parts.isEmpty() ? "no contender measured in this run"
                : (tally.mix().isEmpty() ? "" : tally.mix().substring(1) + ": ") + String.join("; ", parts),
                tally.verdict());
    }

    /** The outcomes as aligned text. */
    public static String text(List<Outcome> outcomes) {
        int w = outcomes.stream().mapToInt(o -> o.target().length()).max().orElse(10);
        int v = outcomes.stream().mapToInt(o -> o.verdict().label().length()).max().orElse(5);
        StringBuilder sb = new StringBuilder();
        for (Outcome o : outcomes) {
            sb.append(String.format(Locale.ROOT, "%-" + w + "s  %-" + v + "s  %s%n", o.target(), o.verdict().label(),
                    o.detail()));
        }
        return sb.toString();
    }

    public static String markdown(List<Outcome> outcomes) {
        StringBuilder sb = new StringBuilder("| target | verdict | figures (median of per-round ratios, interval) |\n"
                + "|---|---|---|\n");
        for (Outcome o : outcomes) {
            sb.append("| ").append(o.target()).append(" | ").append(o.verdict().label()).append(" | ")
                    .append(o.detail().replace("|", "\\|")).append(" |\n");
        }
        return sb.toString();
    }
}
