package dev.loop.bench.compare;

import java.util.Locale;

/** Number formatting shared by the terminal table, the HTML report and the docs. */
final class Format {
    private Format() {
    }

    /** 186.2 M, 12.5 k, 950: four significant figures at most, SI prefix. NaN is "-". */
    static String si(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 1e9) {
            return trim(v / 1e9) + " G";
        }
        if (a >= 1e6) {
            return trim(v / 1e6) + " M";
        }
        if (a >= 1e3) {
            return trim(v / 1e3) + " k";
        }
        return trim(v);
    }

    private static String trim(double v) {
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** 1.50x; NaN is "-". */
    static String ratio(double r) {
        if (Double.isNaN(r) || Double.isInfinite(r)) {
            return "-";
        }
        return String.format(Locale.ROOT, r >= 10 ? "%.1fx" : "%.2fx", r);
    }

    /** Microseconds: 27.2 us, 1,737 us. */
    static String micros(double us) {
        if (Double.isNaN(us)) {
            return "-";
        }
        return us >= 1000 ? String.format(Locale.ROOT, "%,.0f us", us) : String.format(Locale.ROOT, "%.1f us", us);
    }

    /** The spread of a row's samples: "+-3%" of the median, from its min and max. */
    static String spread(Row r) {
        if (r.samples().size() < 2) {
            return r.measured() ? "1 run" : "-";
        }
        double m = r.median();
        double half = (r.max() - r.min()) / 2;
        return String.format(Locale.ROOT, "+-%.0f%%", m == 0 ? 0 : 100 * half / m);
    }

    /** A duration given in seconds, as "850 ns" or "6.1 us"; NaN is "-". */
    static String nanos(double seconds) {
        if (Double.isNaN(seconds)) {
            return "-";
        }
        double ns = seconds * 1e9;
        if (ns < 1000) {
            return String.format(Locale.ROOT, "%.0f ns", ns);
        }
        return String.format(Locale.ROOT, ns < 10_000 ? "%.2f us" : "%.1f us", ns / 1000);
    }

    /** "+-4%": half the confidence interval of the median over the median; "-" without one. */
    static String interval(Rounds.Estimate e) {
        double h = e.relativeHalfWidth();
        return Double.isNaN(h) ? (e.present() ? "1 run" : "-") : String.format(Locale.ROOT, "+-%.0f%%", 100 * h);
    }

    /** 0.431 as "43%"; NaN is "-". */
    static String percent(double fraction) {
        return Double.isNaN(fraction) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * fraction);
    }

    static String cores(double c) {
        return Double.isNaN(c) ? "-" : String.format(Locale.ROOT, "%.2f", c);
    }
}
