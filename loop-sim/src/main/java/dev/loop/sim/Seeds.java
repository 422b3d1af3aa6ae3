package dev.loop.sim;

import java.util.List;
import java.util.function.LongConsumer;

/**
 * Runs a simulated test once per seed and says which seed failed first, with the command that
 * replays it. What {@link Simulated} does for JUnit, for any other caller.
 */
public final class Seeds {
    /** The system property that makes a seed search run one seed only: the replay of a failure. */
    public static final String SEED_PROPERTY = "loop.sim.seed";
    /** The system property that records and prints the trace of a failing run. */
    public static final String TRACE_PROPERTY = "loop.sim.trace";
    /** The most lines of a trace printed with a failure (its end: what led to it). */
    static final int TRACE_LINES = 400;

    private Seeds() {
    }

    /** The first seed that failed, and how. */
    public record Failure(long seed, int index, Throwable cause) {
    }

    /**
     * Runs {@code body} with seeds {@code first}, {@code first + 1}, ... ({@code count} of them), or
     * only with the seed {@value #SEED_PROPERTY} names, and stops at the first that throws.
     *
     * @return the first failure, or null when every seed passed
     */
    public static Failure search(long first, int count, LongConsumer body) {
        String fixed = System.getProperty(SEED_PROPERTY);
        if (fixed != null && !fixed.isBlank()) {
            long seed = Long.parseLong(fixed.trim());
            return attempt(seed, 0, body);
        }
        for (int i = 0; i < count; i++) {
            Failure f = attempt(first + i, i, body);
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    private static Failure attempt(long seed, int index, LongConsumer body) {
        try {
            body.accept(seed);
            return null;
        } catch (Throwable t) { // an assertion or anything else: the seed is what the user needs
            return new Failure(seed, index, t);
        }
    }

    /**
     * The message for a failed seed: the seed, and the one line that runs the test with it alone
     * (with its trace printed).
     *
     * @param test what {@code -Dtest} names to run it: {@code Class#method}
     */
    public static String replayMessage(Failure f, int count, String test) {
        return "simulated run failed with seed " + f.seed() + " (run " + (f.index() + 1) + " of " + count + "): "
                + f.cause() + "\n  replay it: mvn test -Dtest='" + test + "' -D" + SEED_PROPERTY + "=" + f.seed()
                + " -D" + TRACE_PROPERTY + "=true";
    }

    /** Whether runs should record their trace ({@value #TRACE_PROPERTY}). */
    public static boolean tracing() {
        return Boolean.getBoolean(TRACE_PROPERTY);
    }

    /** The end of {@code trace}, at most {@value #TRACE_LINES} lines, for a failure's report. */
    static String tail(List<String> trace) {
        int from = Math.max(0, trace.size() - TRACE_LINES);
        StringBuilder b = new StringBuilder();
        if (from > 0) {
            b.append("  (").append(from).append(" earlier events left out)\n");
        }
        for (String line : trace.subList(from, trace.size())) {
            b.append("  ").append(line).append('\n');
        }
        return b.toString();
    }
}
