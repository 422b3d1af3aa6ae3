package dev.loop.examples.http;

import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP dates (RFC 9110, 5.6.7). An instance keeps the {@code Date} header line, formatted once per
 * second rather than per response (IMF-fixdate, e.g. {@code Sun, 06 Nov 1994 08:49:37 GMT}); it is
 * not thread-safe: one per loop. The static methods format and parse any date, on any thread.
 */
final class HttpDate {
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private static final String DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
    private static final String LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
    private static final String MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
    private static final String TIME = "(\\d\\d):(\\d\\d):(\\d\\d)";
    /** The three forms a recipient must accept; each anchored, without nested repetition. */
    private static final Pattern FIXDATE = Pattern.compile(DAY + ", (\\d\\d) " + MONTH + " (\\d{4}) " + TIME + " GMT");
    private static final Pattern RFC850 = Pattern.compile(LONG_DAY + ", (\\d\\d)-" + MONTH + "-(\\d\\d) " + TIME + " GMT");
    private static final Pattern ASCTIME = Pattern.compile(DAY + " " + MONTH + " ([ \\d]\\d) " + TIME + " (\\d{4})");
    private static final String MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
    /** Longer than any of the three forms: what is longer is not looked at further. */
    private static final int MAX_LENGTH = 40;

    /** The value {@link #parse} gives for what is not an HTTP date. */
    static final long INVALID = Long.MIN_VALUE;

    private long second = Long.MIN_VALUE;
    private byte[] line;

    /** {@code "Date: ...\r\n"} for the current second; the array is shared, do not change it. */
    byte[] line() {
        long now = System.currentTimeMillis();
        long s = Math.floorDiv(now, 1000);
        if (s != second) {
            second = s;
            line = ("Date: " + format(s) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
        return line;
    }

    /** {@code epochSecond} as an IMF-fixdate. */
    static String format(long epochSecond) {
        return IMF_FIXDATE.format(Instant.ofEpochSecond(epochSecond));
    }

    /**
     * The seconds since the epoch that {@code s} names in any of the three HTTP date forms
     * (IMF-fixdate, RFC 850, asctime), or {@link #INVALID}. A two-digit RFC 850 year more than 50
     * years ahead of {@code nowEpochSecond} is taken in the century before, as RFC 9110 says.
     */
    static long parse(String s, long nowEpochSecond) {
        if (s.length() > MAX_LENGTH) {
            return INVALID;
        }
        Matcher m;
        int day;
        int month;
        int year;
        int time;
        if ((m = FIXDATE.matcher(s)).matches()) {
            day = Integer.parseInt(m.group(1));
            month = month(m.group(2));
            year = Integer.parseInt(m.group(3));
            time = 4;
        } else if ((m = RFC850.matcher(s)).matches()) {
            day = Integer.parseInt(m.group(1));
            month = month(m.group(2));
            int thisYear = LocalDateTime.ofEpochSecond(nowEpochSecond, 0, ZoneOffset.UTC).getYear();
            year = thisYear - Math.floorMod(thisYear, 100) + Integer.parseInt(m.group(3));
            if (year > thisYear + 50) {
                year -= 100;
            }
            time = 4;
        } else if ((m = ASCTIME.matcher(s)).matches()) {
            month = month(m.group(1));
            day = Integer.parseInt(m.group(2).trim());
            year = Integer.parseInt(m.group(6));
            time = 3;
        } else {
            return INVALID;
        }
        try {
            return LocalDateTime.of(year, month, day, Integer.parseInt(m.group(time)), Integer.parseInt(m.group(time + 1)),
                    Integer.parseInt(m.group(time + 2))).toEpochSecond(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return INVALID; // 30 February, 25 o'clock: the shape of a date, not a date
        }
    }

    private static int month(String name) {
        return MONTHS.indexOf(name) / 3 + 1;
    }
}
