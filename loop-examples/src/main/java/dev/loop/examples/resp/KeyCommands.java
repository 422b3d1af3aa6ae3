package dev.loop.examples.resp;

import static dev.loop.examples.resp.StringCommands.NOT_AN_INTEGER;
import static dev.loop.examples.resp.StringCommands.SYNTAX;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The commands on keys whatever their type: {@code TYPE}, {@code KEYS}, {@code SCAN},
 * {@code RENAME}/{@code RENAMENX}, {@code UNLINK}, {@code TOUCH}, {@code RANDOMKEY},
 * {@code EXPIREAT}/{@code PEXPIREAT}, {@code EXPIRETIME}/{@code PEXPIRETIME}. Not thread-safe: the
 * data loop's. Arity was checked by the caller.
 *
 * <p>{@code KEYS} walks the whole keyspace in one command, as Redis does: its cost is the number
 * of keys, and the loop serves nobody else meanwhile (a million keys is some tens of
 * milliseconds); {@code SCAN} is the way to walk a big keyspace in bounded steps. The reply is
 * built whole, and is as large as the matching keys.
 */
final class KeyCommands {
    private final List<Keyspace.Entry> scratch = new ArrayList<>();

    void execute(int id, byte[][] argv, Keyspace keys, Reply r) {
        switch (id) {
            case DataCommandTable.TYPE -> {
                Keyspace.Entry e = keys.find(argv[1]);
                r.status(e == null ? "none" : typeName(e.value));
            }
            case DataCommandTable.KEYS -> keys(argv[1], keys, r);
            case DataCommandTable.SCAN -> scan(argv, keys, r);
            case DataCommandTable.RENAME, DataCommandTable.RENAMENX -> rename(argv, id == DataCommandTable.RENAMENX,
                    keys, r);
            case DataCommandTable.UNLINK -> {
                int n = 0;
                for (int i = 1; i < argv.length; i++) {
                    n += keys.delete(argv[i]) ? 1 : 0;
                }
                r.integer(n);
            }
            case DataCommandTable.TOUCH -> {
                int n = 0;
                for (int i = 1; i < argv.length; i++) {
                    n += keys.find(argv[i]) != null ? 1 : 0;
                }
                r.integer(n);
            }
            case DataCommandTable.RANDOMKEY -> {
                for (int tries = keys.size() + 1; tries > 0; tries--) {
                    Keyspace.Entry e = keys.random();
                    if (e == null) {
                        break;
                    }
                    if (!keys.expired(e)) {
                        r.bulk(e.key);
                        return;
                    }
                    keys.remove(e); // due but its timer not run yet: gone, as Redis deletes it here
                }
                r.nullBulk();
            }
            case DataCommandTable.EXPIREAT -> StringCommands.expire(argv, TimeUnit.SECONDS, true, "expireat", keys, r);
            case DataCommandTable.PEXPIREAT -> StringCommands.expire(argv, TimeUnit.MILLISECONDS, true, "pexpireat",
                    keys, r);
            case DataCommandTable.EXPIRETIME, DataCommandTable.PEXPIRETIME -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e == null) {
                    r.integer(-2);
                } else if (e.expiry == null) {
                    r.integer(-1);
                } else {
                    r.integer(id == DataCommandTable.PEXPIRETIME ? e.expireAtMs : (e.expireAtMs + 500) / 1000);
                }
            }
            default -> throw new IllegalArgumentException("not a key command: " + id);
        }
    }

    /** What {@code TYPE} answers for a value. */
    static String typeName(Object v) {
        return v instanceof byte[] ? "string" : v instanceof HashValue ? "hash" : v instanceof ListValue ? "list"
                : v instanceof SetValue ? "set" : "none";
    }

    private static void keys(byte[] pattern, Keyspace keys, Reply r) {
        boolean all = pattern.length == 1 && pattern[0] == '*';
        List<byte[]> found = new ArrayList<>();
        keys.forEach(e -> {
            if (!keys.expired(e) && (all || GlobPattern.matches(pattern, e.key))) {
                found.add(e.key);
            }
        });
        r.arrayHeader(found.size());
        for (byte[] k : found) {
            r.bulk(k);
        }
    }

    /** The options SCAN, HSCAN and SSCAN share, parsed from {@code argv[from]} on. */
    record ScanOptions(byte[] pattern, long count, String type) {
        /** The options, or null with the error replied. */
        static ScanOptions parse(byte[][] argv, int from, boolean typed, Reply r) {
            byte[] pattern = null;
            long count = 10;
            String type = null;
            for (int i = from; i < argv.length; i += 2) {
                boolean hasValue = i + 1 < argv.length;
                if (CommandTable.is(argv[i], "count") && hasValue) {
                    if (!Numbers.isLong(argv[i + 1])) {
                        r.error(NOT_AN_INTEGER);
                        return null;
                    }
                    count = Numbers.parseLong(argv[i + 1]);
                    if (count < 1) {
                        r.error(SYNTAX);
                        return null;
                    }
                } else if (CommandTable.is(argv[i], "match") && hasValue) {
                    pattern = argv[i + 1].length == 1 && argv[i + 1][0] == '*' ? null : argv[i + 1];
                } else if (typed && CommandTable.is(argv[i], "type") && hasValue && type == null) {
                    type = new String(argv[i + 1], StandardCharsets.UTF_8).toLowerCase(java.util.Locale.ROOT);
                } else {
                    r.error(SYNTAX);
                    return null;
                }
            }
            return new ScanOptions(pattern, count, type);
        }
    }

    /**
     * A cursor as Redis reads one (C's strtoul): decimal digits for an unsigned 64-bit number,
     * after an optional sign; a minus wraps around ({@code -1} is all bits set). Returns null with
     * the error replied if it is not one.
     */
    static Long cursor(byte[] arg, Reply r) {
        int i = arg.length > 0 && (arg[0] == '-' || arg[0] == '+') ? 1 : 0;
        if (arg.length > i && arg.length - i <= 20) {
            try {
                long v = Long.parseUnsignedLong(new String(arg, i, arg.length - i, StandardCharsets.US_ASCII));
                return arg[0] == '-' ? -v : v;
            } catch (NumberFormatException e) {
                // below
            }
        }
        r.error("ERR invalid cursor");
        return null;
    }

    /**
     * {@code SCAN cursor [MATCH p] [COUNT n] [TYPE t]}: buckets of the key table, up to ten times
     * {@code COUNT} of them per call (Redis' bound on the work one call does over empty
     * buckets), until {@code COUNT} keys are found. See {@link Keyspace#scan} for what the cursor
     * guarantees.
     */
    private void scan(byte[][] argv, Keyspace keys, Reply r) {
        Long start = cursor(argv[1], r);
        if (start == null) {
            return;
        }
        ScanOptions o = ScanOptions.parse(argv, 2, true, r);
        if (o == null) {
            return;
        }
        scratch.clear();
        long cursor = start;
        long budget = Math.min(o.count(), Integer.MAX_VALUE / 10) * 10;
        do {
            cursor = keys.scan(cursor, scratch);
        } while (cursor != 0 && --budget > 0 && scratch.size() < o.count());
        List<byte[]> found = new ArrayList<>(scratch.size());
        for (Keyspace.Entry e : scratch) {
            if (keys.expired(e)) {
                continue; // its timer is due; it goes when it runs
            }
            if ((o.pattern() == null || GlobPattern.matches(o.pattern(), e.key))
                    && (o.type() == null || o.type().equals(typeName(e.value)))) {
                found.add(e.key);
            }
        }
        scratch.clear();
        r.arrayHeader(2);
        r.bulk(Long.toUnsignedString(cursor));
        r.arrayHeader(found.size());
        for (byte[] k : found) {
            r.bulk(k);
        }
    }

    private static void rename(byte[][] argv, boolean nx, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.error("ERR no such key");
            return;
        }
        if (java.util.Arrays.equals(argv[1], argv[2])) {
            if (nx) {
                r.integer(0);
            } else {
                r.ok();
            }
            return;
        }
        if (nx && keys.find(argv[2]) != null) {
            r.integer(0);
            return;
        }
        long expireAt = e.expiry == null ? -1 : e.expireAtMs;
        Object value = e.value;
        keys.remove(e);
        Keyspace.Entry moved = keys.put(argv[2], value, false);
        if (expireAt != -1) {
            keys.expireAtWall(moved, expireAt);
        }
        if (nx) {
            r.integer(1);
        } else {
            r.ok();
        }
    }
}
