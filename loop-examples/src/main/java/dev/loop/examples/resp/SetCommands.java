package dev.loop.examples.resp;

import static dev.loop.examples.resp.StringCommands.NOT_AN_INTEGER;
import static dev.loop.examples.resp.StringCommands.SYNTAX;
import static dev.loop.examples.resp.StringCommands.WRONGTYPE;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The set commands: {@code SADD}, {@code SREM}, {@code SISMEMBER}, {@code SMISMEMBER},
 * {@code SMEMBERS} (a set in RESP3), {@code SCARD}, {@code SPOP}, {@code SRANDMEMBER},
 * {@code SINTER}/{@code SUNION}/{@code SDIFF} and their {@code STORE} forms, {@code SMOVE},
 * {@code SSCAN}. Not thread-safe: the data loop's. Arity was checked by the caller.
 *
 * <p>{@code SRANDMEMBER key -n} may answer the same member n times: a reply a client sizes with
 * a number and not with data it sent. Redis builds it whatever n is; this server refuses n past
 * {@link #MAX_PICKS}. {@code SSCAN} answers the whole set with cursor 0, as Redis does for a set
 * it keeps as an intset.
 */
final class SetCommands {
    /** The most members one SRANDMEMBER with a negative count answers. */
    static final int MAX_PICKS = 1 << 20;

    void execute(int id, byte[][] argv, Keyspace keys, Reply r) {
        switch (id) {
            case DataCommandTable.SADD -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e != null && !(e.value instanceof SetValue)) {
                    r.error(WRONGTYPE);
                    return;
                }
                if (e == null) {
                    e = keys.put(argv[1], new SetValue(), false);
                }
                SetValue s = (SetValue) e.value;
                int n = 0;
                for (int i = 2; i < argv.length; i++) {
                    n += s.add(new Blob(argv[i])) ? 1 : 0;
                }
                keys.modified(e);
                r.integer(n);
            }
            case DataCommandTable.SREM -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e == null) {
                    r.integer(0);
                } else if (!(e.value instanceof SetValue s)) {
                    r.error(WRONGTYPE);
                } else {
                    int n = 0;
                    for (int i = 2; i < argv.length; i++) {
                        n += s.remove(new Blob(argv[i])) ? 1 : 0;
                    }
                    keys.modified(e);
                    r.integer(n);
                }
            }
            case DataCommandTable.SISMEMBER -> {
                SetValue s = readable(argv[1], keys, r);
                if (s != WRONG) {
                    r.integer(s != null && s.contains(new Blob(argv[2])) ? 1 : 0);
                }
            }
            case DataCommandTable.SMISMEMBER -> {
                SetValue s = readable(argv[1], keys, r);
                if (s != WRONG) {
                    r.arrayHeader(argv.length - 2);
                    for (int i = 2; i < argv.length; i++) {
                        r.integer(s != null && s.contains(new Blob(argv[i])) ? 1 : 0);
                    }
                }
            }
            case DataCommandTable.SMEMBERS -> {
                SetValue s = readable(argv[1], keys, r);
                if (s != WRONG) {
                    members(s == null ? List.of() : s.toList(), r);
                }
            }
            case DataCommandTable.SCARD -> {
                SetValue s = readable(argv[1], keys, r);
                if (s != WRONG) {
                    r.integer(s == null ? 0 : s.size());
                }
            }
            case DataCommandTable.SPOP -> spop(argv, keys, r);
            case DataCommandTable.SRANDMEMBER -> srandmember(argv, keys, r);
            case DataCommandTable.SINTER, DataCommandTable.SINTERSTORE -> inter(argv,
                    id == DataCommandTable.SINTERSTORE, keys, r);
            case DataCommandTable.SUNION, DataCommandTable.SUNIONSTORE, DataCommandTable.SDIFF,
                 DataCommandTable.SDIFFSTORE -> unionDiff(argv, id == DataCommandTable.SUNIONSTORE
                    || id == DataCommandTable.SDIFFSTORE, id == DataCommandTable.SUNION
                    || id == DataCommandTable.SUNIONSTORE, keys, r);
            case DataCommandTable.SMOVE -> smove(argv, keys, r);
            case DataCommandTable.SSCAN -> sscan(argv, keys, r);
            default -> throw new IllegalArgumentException("not a set command: " + id);
        }
    }

    private static final SetValue WRONG = new SetValue();

    /** The set at {@code key}, null if there is none, {@link #WRONG} (replied) if it is another type. */
    private static SetValue readable(byte[] key, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(key);
        if (e == null) {
            return null;
        }
        if (e.value instanceof SetValue s) {
            return s;
        }
        r.error(WRONGTYPE);
        return WRONG;
    }

    private static void members(List<Blob> l, Reply r) {
        r.setHeader(l.size());
        for (Blob b : l) {
            r.bulk(b.bytes);
        }
    }

    private static void spop(byte[][] argv, Keyspace keys, Reply r) {
        if (argv.length > 3) {
            r.error(SYNTAX);
            return;
        }
        long count = 1;
        if (argv.length == 3) {
            if (!Numbers.isLong(argv[2]) || Numbers.parseLong(argv[2]) < 0) {
                r.error("ERR value is out of range, must be positive");
                return;
            }
            count = Numbers.parseLong(argv[2]);
        }
        Keyspace.Entry e = keys.find(argv[1]);
        if (e != null && !(e.value instanceof SetValue)) {
            r.error(WRONGTYPE);
            return;
        }
        if (e == null) {
            if (argv.length == 3) {
                r.setHeader(0);
            } else {
                r.nullBulk();
            }
            return;
        }
        SetValue s = (SetValue) e.value;
        if (argv.length == 2) {
            Blob m = s.random();
            s.remove(m);
            keys.modified(e);
            r.bulk(m.bytes);
            return;
        }
        if (count >= s.size()) {
            members(s.toList(), r); // the whole set, and the key is gone
            keys.remove(e);
            return;
        }
        r.setHeader((int) count);
        for (long i = 0; i < count; i++) {
            Blob m = s.random();
            s.remove(m);
            r.bulk(m.bytes);
        }
        keys.modified(e);
    }

    private static void srandmember(byte[][] argv, Keyspace keys, Reply r) {
        if (argv.length > 3) {
            r.error(SYNTAX);
            return;
        }
        long count = 0;
        if (argv.length == 3) {
            if (!Numbers.isLong(argv[2]) || Numbers.parseLong(argv[2]) == Long.MIN_VALUE) {
                r.error(Numbers.isLong(argv[2]) ? "ERR value is out of range, value must between "
                        + "-9223372036854775807 and 9223372036854775807" : NOT_AN_INTEGER);
                return;
            }
            count = Numbers.parseLong(argv[2]);
        }
        SetValue s = readable(argv[1], keys, r);
        if (s == WRONG) {
            return;
        }
        if (argv.length == 2) {
            r.bulk(s == null ? null : s.random().bytes);
            return;
        }
        if (s == null || count == 0) {
            r.arrayHeader(0);
            return;
        }
        if (count < 0) {
            if (-count > MAX_PICKS) {
                r.error("ERR count is out of the range this server answers (at most " + MAX_PICKS
                        + " members with repetition)");
                return;
            }
            r.arrayHeader((int) -count);
            for (long i = 0; i < -count; i++) {
                r.bulk(s.random().bytes);
            }
            return;
        }
        if (count >= s.size()) {
            List<Blob> all = s.toList();
            r.arrayHeader(all.size());
            all.forEach(b -> r.bulk(b.bytes));
            return;
        }
        // fewer than the set holds: distinct members, picked by removing from a copy of the order
        List<Blob> pool = s.toList();
        java.util.concurrent.ThreadLocalRandom rnd = java.util.concurrent.ThreadLocalRandom.current();
        r.arrayHeader((int) count);
        for (int i = 0; i < count; i++) {
            int j = i + rnd.nextInt(pool.size() - i);
            Blob b = pool.get(j);
            pool.set(j, pool.get(i));
            pool.set(i, b);
            r.bulk(b.bytes);
        }
    }

    /**
     * The sets at {@code argv[from...]} (null for a missing key), or null with WRONGTYPE replied:
     * every key is checked before anything is computed, as Redis does.
     */
    private static List<SetValue> sets(byte[][] argv, int from, Keyspace keys, Reply r) {
        List<SetValue> l = new ArrayList<>(argv.length - from);
        for (int i = from; i < argv.length; i++) {
            SetValue s = readable(argv[i], keys, r);
            if (s == WRONG) {
                return null;
            }
            l.add(s);
        }
        return l;
    }

    private static void inter(byte[][] argv, boolean store, Keyspace keys, Reply r) {
        List<SetValue> sets = sets(argv, store ? 2 : 1, keys, r);
        if (sets == null) {
            return;
        }
        SetValue result = new SetValue();
        if (!sets.contains(null)) {
            sets.sort(Comparator.comparingInt(SetValue::size)); // the smallest is walked
            for (Blob m : sets.get(0).toList()) {
                boolean everywhere = true;
                for (int i = 1; i < sets.size() && everywhere; i++) {
                    everywhere = sets.get(i).contains(m);
                }
                if (everywhere) {
                    result.add(m);
                }
            }
        }
        answer(result, store ? argv[1] : null, keys, r);
    }

    private static void unionDiff(byte[][] argv, boolean store, boolean union, Keyspace keys, Reply r) {
        List<SetValue> sets = sets(argv, store ? 2 : 1, keys, r);
        if (sets == null) {
            return;
        }
        SetValue result = new SetValue();
        if (union) {
            for (SetValue s : sets) {
                if (s != null) {
                    s.toList().forEach(result::add);
                }
            }
        } else if (sets.get(0) != null) {
            for (Blob m : sets.get(0).toList()) {
                boolean elsewhere = false;
                for (int i = 1; i < sets.size() && !elsewhere; i++) {
                    elsewhere = sets.get(i) != null && sets.get(i).contains(m);
                }
                if (!elsewhere) {
                    result.add(m);
                }
            }
        }
        answer(result, store ? argv[1] : null, keys, r);
    }

    /** Replies with {@code result}, or stores it at {@code dest} (deleting it if empty) and replies its size. */
    private static void answer(SetValue result, byte[] dest, Keyspace keys, Reply r) {
        if (dest == null) {
            members(result.toList(), r);
            return;
        }
        if (result.size() > 0) {
            keys.put(dest, result, false);
        } else {
            keys.delete(dest);
        }
        r.integer(result.size());
    }

    private static void smove(byte[][] argv, Keyspace keys, Reply r) {
        Keyspace.Entry src = keys.find(argv[1]);
        Keyspace.Entry dst = keys.find(argv[2]);
        if (src == null) {
            r.integer(0);
            return;
        }
        if (!(src.value instanceof SetValue from) || (dst != null && !(dst.value instanceof SetValue))) {
            r.error(WRONGTYPE);
            return;
        }
        Blob m = new Blob(argv[3]);
        if (src == dst) {
            r.integer(from.contains(m) ? 1 : 0);
            return;
        }
        if (!from.remove(m)) {
            r.integer(0);
            return;
        }
        keys.modified(src);
        if (dst == null) {
            dst = keys.put(argv[2], new SetValue(), false);
        }
        ((SetValue) dst.value).add(m);
        keys.modified(dst);
        r.integer(1);
    }

    private static void sscan(byte[][] argv, Keyspace keys, Reply r) {
        if (KeyCommands.cursor(argv[2], r) == null) {
            return;
        }
        SetValue s = readable(argv[1], keys, r);
        if (s == WRONG) {
            return;
        }
        KeyCommands.ScanOptions o = s == null ? null : KeyCommands.ScanOptions.parse(argv, 3, false, r);
        if (s != null && o == null) {
            return;
        }
        List<Blob> found = new ArrayList<>();
        if (s != null) {
            for (Blob m : s.toList()) {
                if (o.pattern() == null || GlobPattern.matches(o.pattern(), m.bytes)) {
                    found.add(m);
                }
            }
        }
        r.arrayHeader(2);
        r.bulk("0");
        r.arrayHeader(found.size());
        found.forEach(b -> r.bulk(b.bytes));
    }
}
