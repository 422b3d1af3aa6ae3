package dev.loop.examples.resp;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The arithmetic of {@code INCRBYFLOAT} and {@code HINCRBYFLOAT} as redis-server does it on x86-64:
 * in C's {@code long double} (x87 extended precision, a 64-bit significand), printed with
 * {@code %.17Lf} and its trailing zeros cut. Java has no such type, so values are kept exactly as
 * {@link BigDecimal}s and rounded to a 64-bit significand after reading and after adding: the same
 * bits as the C code, hence the same digits ({@code 0.1} plus {@code 0.2} answers {@code 0.3},
 * where Java's doubles would answer {@code 0.30000000000000004}).
 *
 * <p>Only decimal input is read (with an exponent or not); C's hexadecimal floats are refused.
 */
final class LongDouble {
    private static final int SIGNIFICAND_BITS = 64;
    /** Redis' MAX_LONG_DOUBLE_CHARS: longer input is refused before it is parsed. */
    static final int MAX_CHARS = 5 * 1024;
    /** The largest x87 extended exponent; beyond it a value is infinite. */
    private static final int MAX_EXPONENT = 16383;

    private LongDouble() {
    }

    /**
     * The value of {@code b} rounded to a long double, or null if Redis would not read it as one
     * (empty, spaces, junk after the number, out of range, NaN, or infinite: {@code inf} reads,
     * then fails the sum, as in Redis, and is returned here as null too since no sum of it is
     * finite).
     */
    static BigDecimal parse(byte[] b) {
        if (b.length == 0 || b.length >= MAX_CHARS) {
            return null;
        }
        for (byte c : b) {
            boolean ok = (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
            if (!ok) {
                return null;
            }
        }
        try {
            BigDecimal v = new BigDecimal(new String(b, java.nio.charset.StandardCharsets.US_ASCII));
            return round(v);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }

    /** {@code a + b} rounded to a long double, or null if it overflows. */
    static BigDecimal add(BigDecimal a, BigDecimal b) {
        return round(a.add(b));
    }

    /** {@code %.17Lf} with trailing zeros (and a trailing point) cut, {@code -0} as {@code 0}. */
    static String format(BigDecimal v) {
        String s = v.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        s = s.substring(0, end);
        return s.equals("-0") ? "0" : s;
    }

    /**
     * {@code v} rounded half-even to 64 significant bits, or null if it is beyond the long double
     * range (a value too small for it is refused by Redis too: {@code ERANGE}).
     */
    private static BigDecimal round(BigDecimal v) {
        if (v.signum() == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal abs = v.abs();
        long decimalExponent = (long) abs.precision() - abs.scale() - 1;
        if (decimalExponent > 4933 || decimalExponent < -4970) {
            return null; // beyond the long double range: checked before any power of two is built
        }
        // the binary exponent e with 2^e <= abs < 2^(e+1), from a decimal estimate then corrected
        int e = (int) Math.floor((abs.precision() - abs.scale() - 1) * 3.321928094887362);
        while (pow2(e).compareTo(abs) > 0) {
            e--;
        }
        while (pow2(e + 1).compareTo(abs) <= 0) {
            e++;
        }
        if (e > MAX_EXPONENT || e < -MAX_EXPONENT - SIGNIFICAND_BITS) {
            return null;
        }
        int shift = SIGNIFICAND_BITS - 1 - e; // abs * 2^shift has 64 integer bits
        BigDecimal scaled = shift >= 0 ? abs.multiply(pow2(shift)) : abs.divide(pow2(-shift));
        BigInteger m = scaled.setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
        BigDecimal r = shift >= 0 ? new BigDecimal(m).divide(pow2(shift)) : new BigDecimal(m).multiply(pow2(-shift));
        if (m.bitLength() > SIGNIFICAND_BITS && e + 1 > MAX_EXPONENT) {
            return null;
        }
        return v.signum() < 0 ? r.negate() : r;
    }

    /** 2^n exactly (n may be negative: 2^-n has n decimal digits, exactly). */
    private static BigDecimal pow2(int n) {
        return n >= 0 ? new BigDecimal(BigInteger.ONE.shiftLeft(n))
                : BigDecimal.ONE.divide(new BigDecimal(BigInteger.ONE.shiftLeft(-n)), MathContext.UNLIMITED);
    }
}
