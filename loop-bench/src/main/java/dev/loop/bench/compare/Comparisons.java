package dev.loop.bench.compare;

import java.util.Optional;

/**
 * Rows of ours compared with a twin of ours in the same rounds, named alike but for a suffix:
 * "loop epoll/heap, metrics on" with "loop epoll/heap, metrics off", "..., 2 loops" with
 * "..., 1 loop". Both the score and the server's CPU per operation as medians of per-round ratios
 * with their confidence intervals ({@link Rounds#pairedRatio}).
 */
final class Comparisons {
    private Comparisons() {
    }

    /** The row of {@code workload} named {@code contender}'s prefix before {@code suffix}, plus {@code twinSuffix}. */
    static Optional<Row> twin(Results results, Row row, String suffix, String twinSuffix) {
        if (!row.contender().endsWith(suffix)) {
            return Optional.empty();
        }
        String name = row.contender().substring(0, row.contender().length() - suffix.length()) + twinSuffix;
        return results.rowsOf(row.workload()).stream().filter(r -> r.contender().equals(name) && r.measured())
                .findFirst();
    }

    /** {@code a}'s CPU per operation over {@code b}'s, round by round. */
    static Rounds.Estimate cpuRatio(Row a, Row b) {
        return Rounds.pairedRatio(a.cpuPerOpSamples(), b.cpuPerOpSamples());
    }

    /**
     * Adds to the note of every measured row of {@code group} named with {@code suffix} its score
     * and CPU per operation over its twin's (named with {@code twinSuffix}).
     */
    static void annotate(Results results, String group, String suffix, String twinSuffix) {
        for (Row r : results.rows()) {
            if (!r.group().equals(group) || !r.measured()) {
                continue;
            }
            Optional<Row> t = twin(results, r, suffix, twinSuffix);
            if (t.isEmpty()) {
                continue;
            }
            String text = "vs" + twinSuffix.substring(1) + ": " + r.unit() + " "
                    + Targets.withInterval(results.ratio(r, t.get())) + ", CPU/op "
                    + Targets.withInterval(cpuRatio(r, t.get()));
            results.replace(r, r.withNote(r.note() == null ? text : r.note() + "; " + text));
        }
    }
}
