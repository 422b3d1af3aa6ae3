package dev.loop.examples.resp;

import static dev.loop.examples.resp.StringCommands.NOT_AN_INTEGER;
import static dev.loop.examples.resp.StringCommands.SYNTAX;
import static dev.loop.examples.resp.StringCommands.WRONGTYPE;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The string commands past SET and GET: {@code GETSET}, {@code GETDEL}, {@code GETEX},
 * {@code SETNX}, {@code SETEX}, {@code PSETEX}, {@code APPEND}, {@code STRLEN}, {@code GETRANGE},
 * {@code SETRANGE}, {@code INCRBYFLOAT}, {@code MSETNX}. Not thread-safe: the data loop's. Arity
 * was checked by the caller.
 *
 * <p>What a client can make the server build: a string of at most {@link #maxString} bytes.
 * {@code SETRANGE key 536870000 x} declares a length the client never sends, so it is refused
 * past the server's maximum bulk length ({@code --max-bulk}, Redis' proto-max-bulk-len, 512 MB
 * by default) as Redis refuses it, and also past a quarter of the JVM's heap, where Redis would
 * have the memory and this process would not. {@code APPEND} copies the string (O(length) per
 * call: Redis amortises with spare room at the end, this does not).
 */
final class StringEditCommands {
    static final String TOO_BIG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    private final long maxString;

    StringEditCommands(long maxBulk) {
        this.maxString = Math.min(maxBulk, Runtime.getRuntime().maxMemory() / 4);
    }

    void execute(int id, byte[][] argv, Keyspace keys, Reply r) {
        switch (id) {
            case DataCommandTable.GETSET -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e != null && !(e.value instanceof byte[])) {
                    r.error(WRONGTYPE);
                    return;
                }
                r.bulk(e == null ? null : (byte[]) e.value);
                keys.put(argv[1], argv[2], false);
            }
            case DataCommandTable.GETDEL -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e != null && !(e.value instanceof byte[])) {
                    r.error(WRONGTYPE);
                    return;
                }
                r.bulk(e == null ? null : (byte[]) e.value);
                if (e != null) {
                    keys.remove(e);
                }
            }
            case DataCommandTable.GETEX -> getex(argv, keys, r);
            case DataCommandTable.SETNX -> {
                if (keys.find(argv[1]) != null) {
                    r.integer(0);
                } else {
                    keys.put(argv[1], argv[2], false);
                    r.integer(1);
                }
            }
            case DataCommandTable.SETEX, DataCommandTable.PSETEX -> {
                boolean seconds = id == DataCommandTable.SETEX;
                long when = expireMillis(argv[2], seconds ? TimeUnit.SECONDS : TimeUnit.MILLISECONDS, false,
                        seconds ? "setex" : "psetex", keys, r);
                if (when != Long.MIN_VALUE) {
                    keys.expireAtWall(keys.put(argv[1], argv[3], false), when);
                    r.ok();
                }
            }
            case DataCommandTable.APPEND -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e == null) {
                    keys.put(argv[1], argv[2], false);
                    r.integer(argv[2].length);
                } else if (!(e.value instanceof byte[] old)) {
                    r.error(WRONGTYPE);
                } else if ((long) old.length + argv[2].length > maxString) {
                    r.error(TOO_BIG);
                } else {
                    byte[] v = java.util.Arrays.copyOf(old, old.length + argv[2].length);
                    System.arraycopy(argv[2], 0, v, old.length, argv[2].length);
                    keys.replace(e, v);
                    r.integer(v.length);
                }
            }
            case DataCommandTable.STRLEN -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e != null && !(e.value instanceof byte[])) {
                    r.error(WRONGTYPE);
                } else {
                    r.integer(e == null ? 0 : ((byte[]) e.value).length);
                }
            }
            case DataCommandTable.GETRANGE -> getrange(argv, keys, r);
            case DataCommandTable.SETRANGE -> setrange(argv, keys, r);
            case DataCommandTable.INCRBYFLOAT -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e != null && !(e.value instanceof byte[])) {
                    r.error(WRONGTYPE);
                    return;
                }
                byte[] sum = addFloat(e == null ? null : (byte[]) e.value, argv[2], "ERR value is not a valid float",
                        false, r);
                if (sum != null) {
                    if (e == null) {
                        keys.put(argv[1], sum, false);
                    } else {
                        keys.replace(e, sum);
                    }
                    r.bulk(sum);
                }
            }
            case DataCommandTable.MSETNX -> {
                if (argv.length % 2 == 0) {
                    Commands.wrongArity(r, "msetnx");
                    return;
                }
                for (int i = 1; i < argv.length; i += 2) {
                    if (keys.find(argv[i]) != null) {
                        r.integer(0);
                        return;
                    }
                }
                for (int i = 1; i < argv.length; i += 2) {
                    keys.put(argv[i], argv[i + 1], false);
                }
                r.integer(1);
            }
            default -> throw new IllegalArgumentException("not a string command: " + id);
        }
    }

    /**
     * {@code current + increment} as Redis' long double arithmetic gives it, as the digits it
     * stores; null (and the error replied) if either is not a number or the sum is not finite.
     * {@code currentError} is what a current value that is not a number is answered with; with
     * {@code incrementFirst} the increment is checked first (HINCRBYFLOAT's order).
     */
    static byte[] addFloat(byte[] current, byte[] increment, String currentError, boolean incrementFirst, Reply r) {
        boolean currentInf = isInfinity(current);
        boolean incrementInf = isInfinity(increment);
        BigDecimal a = current == null ? BigDecimal.ZERO : currentInf ? null : LongDouble.parse(current);
        BigDecimal b = incrementInf ? null : LongDouble.parse(increment);
        boolean badCurrent = a == null && !currentInf;
        boolean badIncrement = b == null && !incrementInf;
        if (badIncrement && (incrementFirst || !badCurrent)) {
            r.error("ERR value is not a valid float");
            return null;
        }
        if (badCurrent) {
            r.error(currentError);
            return null;
        }
        BigDecimal sum = currentInf || incrementInf ? null : LongDouble.add(a, b);
        if (sum == null) {
            r.error("ERR increment would produce NaN or Infinity");
            return null;
        }
        return LongDouble.format(sum).getBytes(StandardCharsets.US_ASCII);
    }

    /** Whether C's strtold reads {@code b} as an infinity (it reads, and only the sum fails). */
    static boolean isInfinity(byte[] b) {
        if (b == null) {
            return false;
        }
        String s = new String(b, StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
        if (s.startsWith("+") || s.startsWith("-")) {
            s = s.substring(1);
        }
        return s.equals("inf") || s.equals("infinity");
    }

    /**
     * The wall-clock deadline {@code arg} names (a duration from now, or with {@code absolute} a
     * Unix time), or {@link Long#MIN_VALUE} with the error replied: Redis' checks and wording.
     */
    static long expireMillis(byte[] arg, TimeUnit unit, boolean absolute, String command, Keyspace keys, Reply r) {
        if (!Numbers.isLong(arg)) {
            r.error(NOT_AN_INTEGER);
            return Long.MIN_VALUE;
        }
        long n = Numbers.parseLong(arg);
        long base = absolute ? 0 : keys.wallMillis();
        if (n <= 0 || (unit == TimeUnit.SECONDS && n > Long.MAX_VALUE / 1000) || unit.toMillis(n) > Long.MAX_VALUE - base) {
            r.error("ERR invalid expire time in '" + command + "' command");
            return Long.MIN_VALUE;
        }
        return unit.toMillis(n) + base;
    }

    /** {@code GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]}: the options, the key, then the time. */
    private static void getex(byte[][] argv, Keyspace keys, Reply r) {
        String kind = null;
        byte[] time = null;
        for (int j = 2; j < argv.length; j++) {
            byte[] o = argv[j];
            boolean hasNext = j + 1 < argv.length;
            if (CommandTable.is(o, "persist") && kind == null) {
                kind = "persist";
            } else if ((CommandTable.is(o, "ex") || CommandTable.is(o, "px") || CommandTable.is(o, "exat")
                    || CommandTable.is(o, "pxat")) && hasNext
                    && (kind == null || CommandTable.is(o, kind))) {
                kind = new String(o, StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
                time = argv[++j];
            } else {
                r.error(SYNTAX);
                return;
            }
        }
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.nullBulk();
            return;
        }
        if (!(e.value instanceof byte[] v)) {
            r.error(WRONGTYPE);
            return;
        }
        if (time != null) {
            TimeUnit unit = kind.startsWith("e") ? TimeUnit.SECONDS : TimeUnit.MILLISECONDS;
            long when = expireMillis(time, unit, kind.endsWith("at"), "getex", keys, r);
            if (when == Long.MIN_VALUE) {
                return;
            }
            r.bulk(v);
            keys.expireAtWall(e, when); // a time already past deletes the key, after the reply
        } else {
            r.bulk(v);
            if ("persist".equals(kind)) {
                keys.persist(e);
            }
        }
    }

    private static void getrange(byte[][] argv, Keyspace keys, Reply r) {
        if (!Numbers.isLong(argv[2]) || !Numbers.isLong(argv[3])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long start = Numbers.parseLong(argv[2]);
        long end = Numbers.parseLong(argv[3]);
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.bulk(Reply.EMPTY);
            return;
        }
        if (!(e.value instanceof byte[] v)) {
            r.error(WRONGTYPE);
            return;
        }
        long len = v.length;
        if (start < 0 && end < 0 && start > end) {
            r.bulk(Reply.EMPTY);
            return;
        }
        start = Math.max(0, start < 0 ? len + start : start);
        end = Math.max(0, end < 0 ? len + end : end);
        end = Math.min(end, len - 1);
        if (start > end || len == 0) {
            r.bulk(Reply.EMPTY);
        } else {
            r.buffer().put((byte) '$').putDecimal(end - start + 1).put(Reply.CRLF).put(v, (int) start,
                    (int) (end - start + 1)).put(Reply.CRLF);
        }
    }

    private void setrange(byte[][] argv, Keyspace keys, Reply r) {
        if (!Numbers.isLong(argv[2])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long offset = Numbers.parseLong(argv[2]);
        if (offset < 0) {
            r.error("ERR offset is out of range");
            return;
        }
        byte[] value = argv[3];
        Keyspace.Entry e = keys.find(argv[1]);
        byte[] old;
        if (e == null) {
            old = Reply.EMPTY;
            if (value.length == 0) {
                r.integer(0);
                return;
            }
        } else if (!(e.value instanceof byte[] v)) {
            r.error(WRONGTYPE);
            return;
        } else {
            old = v;
            if (value.length == 0) {
                r.integer(old.length);
                return;
            }
        }
        if (offset > maxString - value.length) { // not offset + length: that may overflow
            r.error(TOO_BIG); // checked before anything is allocated: the offset is only a number
            return;
        }
        int len = (int) Math.max(old.length, offset + value.length);
        byte[] next = java.util.Arrays.copyOf(old, len);
        System.arraycopy(value, 0, next, (int) offset, value.length);
        if (e == null) {
            keys.put(argv[1], next, false);
        } else {
            keys.replace(e, next);
        }
        r.integer(len);
    }
}
