package dev.loop.bench.compare;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress while the comparison runs: one line per contender and workload, numbered against the
 * planned total, with the elapsed time, a dot per measured iteration and the result.
 */
final class Progress {
    private final PrintStream out;
    private final long startNanos = System.nanoTime();
    private int total;
    private int step;
    private boolean open;

    Progress(PrintStream out, int total) {
        this.out = out;
        this.total = total;
    }

    synchronized void addToTotal(int n) {
        total += n;
    }

    synchronized void start(String workload, String contender) {
        closeLine();
        step++;
        long s = (System.nanoTime() - startNanos) / 1_000_000_000L;
        out.printf(Locale.ROOT, "[%3d/%d %2d:%02d] %-38s %-40s ", step, Math.max(total, step), s / 60, s % 60,
                workload, contender);
        out.flush();
        open = true;
    }

    synchronized void tick() {
        if (open) {
            out.print('.');
            out.flush();
        }
    }

    synchronized void finish(String result) {
        if (open) {
            out.println(" " + result);
            out.flush();
            open = false;
        }
    }

    /** A line of its own, between steps. */
    synchronized void note(String text) {
        closeLine();
        out.println(text);
        out.flush();
    }

    private void closeLine() {
        if (open) {
            out.println();
            open = false;
        }
    }

    long elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1_000_000_000L;
    }
}
