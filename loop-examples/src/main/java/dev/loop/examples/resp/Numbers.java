package dev.loop.examples.resp;

/**
 * Strict decimal integers as Redis reads them (its {@code string2ll}): an optional minus sign, then
 * digits without a leading zero (except {@code 0} itself), no plus sign, no spaces, within a
 * {@code long}. Works on byte ranges, so checking an argument allocates nothing.
 */
final class Numbers {
    private Numbers() {
    }

    /** Whether {@code b[from, to)} is such an integer. */
    static boolean isLong(byte[] b, int from, int to) {
        int len = to - from;
        if (len <= 0 || len > 20) {
            return false;
        }
        int i = from;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
            if (i == to) {
                return false;
            }
        }
        if (b[i] == '0') {
            return i + 1 == to && !negative; // "0" yes; "-0" and "01" no
        }
        long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
        long n = 0; // accumulated negatively, so Long.MIN_VALUE fits
        for (; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            if (n < (limit + d) / 10) {
                return false;
            }
            n = n * 10 - d;
        }
        return true;
    }

    static boolean isLong(byte[] b) {
        return isLong(b, 0, b.length);
    }

    /** The value of {@code b[from, to)}, which {@link #isLong} accepted. */
    static long parseLong(byte[] b, int from, int to) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        long n = 0;
        for (; i < to; i++) {
            n = n * 10 - (b[i] - '0');
        }
        return negative ? n : -n;
    }

    static long parseLong(byte[] b) {
        return parseLong(b, 0, b.length);
    }

    /** The decimal digits of {@code n}, as Redis stores a counter. */
    static byte[] toBytes(long n) {
        return Long.toString(n).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * A double as Redis 7 writes one in a reply: the shortest digits that read back as the same
     * value, plain where the exponent is small ({@code 3.5}, {@code 10}, {@code 0.001}), with an
     * exponent otherwise ({@code 1e+20}), and {@code inf}, {@code -inf}, {@code nan}.
     */
    static String formatDouble(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0" : "0";
        }
        java.math.BigDecimal v = new java.math.BigDecimal(Double.toString(d)).stripTrailingZeros();
        int exponent = v.precision() - v.scale() - 1; // the power of ten of the first digit
        if (exponent < -5 || exponent >= 21) {
            String digits = v.unscaledValue().abs().toString();
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return (d < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" : "+")
                    + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        return v.toPlainString();
    }
}
