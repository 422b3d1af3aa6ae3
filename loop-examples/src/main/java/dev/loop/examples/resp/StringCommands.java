package dev.loop.examples.resp;

import dev.loop.examples.io.OutputBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The commands on string keys and their time to live: {@code SET}, {@code GET}, {@code DEL},
 * {@code EXISTS}, {@code INCR}/{@code DECR}/{@code INCRBY}/{@code DECRBY}, {@code MGET},
 * {@code MSET}, {@code EXPIRE}/{@code PEXPIRE}, {@code TTL}/{@code PTTL}, {@code PERSIST}. Not
 * thread-safe: the data loop's. Arity was checked by the caller.
 */
final class StringCommands {
    static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";
    static final String SYNTAX = "ERR syntax error";
    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    void execute(int id, byte[][] argv, Keyspace keys, Reply r) {
        switch (id) {
            case CommandTable.SET -> set(argv, keys, r);
            case CommandTable.GET -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e == null) {
                    r.nullBulk();
                } else if (e.value instanceof byte[] b) {
                    r.bulk(b);
                } else {
                    r.error(WRONGTYPE);
                }
            }
            case CommandTable.DEL -> {
                int n = 0;
                for (int i = 1; i < argv.length; i++) {
                    n += keys.delete(argv[i]) ? 1 : 0;
                }
                r.integer(n);
            }
            case CommandTable.EXISTS -> {
                int n = 0;
                for (int i = 1; i < argv.length; i++) {
                    n += keys.find(argv[i]) != null ? 1 : 0;
                }
                r.integer(n);
            }
            case CommandTable.INCR -> incrBy(argv[1], 1, keys, r);
            case CommandTable.DECR -> incrBy(argv[1], -1, keys, r);
            case CommandTable.INCRBY, CommandTable.DECRBY -> {
                if (!Numbers.isLong(argv[2])) {
                    r.error(NOT_AN_INTEGER);
                    return;
                }
                long by = Numbers.parseLong(argv[2]);
                if (id == CommandTable.DECRBY) {
                    if (by == Long.MIN_VALUE) {
                        r.error("ERR decrement would overflow");
                        return;
                    }
                    by = -by;
                }
                incrBy(argv[1], by, keys, r);
            }
            case CommandTable.MGET -> {
                r.arrayHeader(argv.length - 1);
                for (int i = 1; i < argv.length; i++) {
                    Keyspace.Entry e = keys.find(argv[i]);
                    if (e != null && e.value instanceof byte[] b) {
                        r.bulk(b);
                    } else {
                        r.nullBulk(); // MGET answers null for a key of another type, as Redis does
                    }
                }
            }
            case CommandTable.MSET -> {
                if (argv.length % 2 == 0) {
                    Commands.wrongArity(r, "mset");
                    return;
                }
                for (int i = 1; i < argv.length; i += 2) {
                    keys.put(argv[i], argv[i + 1], false);
                }
                r.ok();
            }
            case CommandTable.EXPIRE -> expire(argv, TimeUnit.SECONDS, false, "expire", keys, r);
            case CommandTable.PEXPIRE -> expire(argv, TimeUnit.MILLISECONDS, false, "pexpire", keys, r);
            case CommandTable.TTL, CommandTable.PTTL -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e == null) {
                    r.integer(-2);
                    return;
                }
                long ms = keys.ttlMillis(e);
                r.integer(ms < 0 ? -1 : id == CommandTable.PTTL ? ms : (ms + 500) / 1000);
            }
            case CommandTable.PERSIST -> {
                Keyspace.Entry e = keys.find(argv[1]);
                r.integer(e != null && keys.persist(e) ? 1 : 0);
            }
            default -> throw new IllegalArgumentException("not a string command: " + id);
        }
    }

    /**
     * {@code SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]}, with Redis' rules on
     * combinations.
     */
    private static void set(byte[][] argv, Keyspace keys, Reply r) {
        boolean nx = false;
        boolean xx = false;
        boolean get = false;
        boolean keepTtl = false;
        byte[] ttl = null;
        TimeUnit unit = null;
        boolean absolute = false;
        for (int j = 3; j < argv.length; j++) {
            byte[] opt = argv[j];
            boolean hasNext = j + 1 < argv.length;
            if (CommandTable.is(opt, "nx") && !xx) {
                nx = true;
            } else if (CommandTable.is(opt, "xx") && !nx) {
                xx = true;
            } else if (CommandTable.is(opt, "get")) {
                get = true;
            } else if (CommandTable.is(opt, "keepttl") && ttl == null) {
                keepTtl = true;
            } else if ((CommandTable.is(opt, "ex") || CommandTable.is(opt, "px") || CommandTable.is(opt, "exat")
                    || CommandTable.is(opt, "pxat")) && !keepTtl && hasNext
                    && (ttl == null || (unit == unitOf(opt) && absolute == (opt.length == 4)))) {
                // the same option again replaces the first, as in Redis; another kind is an error
                unit = CommandTable.is(opt, "ex") || CommandTable.is(opt, "exat") ? TimeUnit.SECONDS
                        : TimeUnit.MILLISECONDS;
                absolute = opt.length == 4;
                ttl = argv[++j];
            } else {
                r.error(SYNTAX);
                return;
            }
        }
        long whenMs = 0;
        if (ttl != null) {
            if (!Numbers.isLong(ttl)) {
                r.error(NOT_AN_INTEGER);
                return;
            }
            long n = Numbers.parseLong(ttl);
            long now = absolute ? 0 : keys.wallMillis();
            if (n <= 0 || (unit == TimeUnit.SECONDS && n > Long.MAX_VALUE / 1000)
                    || unit.toMillis(n) > Long.MAX_VALUE - now) {
                r.error("ERR invalid expire time in 'set' command");
                return;
            }
            whenMs = unit.toMillis(n) + now;
        }
        Keyspace.Entry old = keys.find(argv[1]);
        if (get && old != null && !(old.value instanceof byte[])) {
            r.error(WRONGTYPE);
            return;
        }
        byte[] previous = old == null ? null : (byte[]) old.value;
        if ((nx && old != null) || (xx && old == null)) {
            if (get) {
                r.bulk(previous);
            } else {
                r.nullBulk();
            }
            return;
        }
        Keyspace.Entry e = keys.put(argv[1], argv[2], keepTtl);
        if (ttl != null) {
            keys.expireAtWall(e, whenMs);
        }
        if (get) {
            r.bulk(previous);
        } else {
            r.ok();
        }
    }

    private static TimeUnit unitOf(byte[] opt) {
        return opt[0] == 'e' || opt[0] == 'E' ? TimeUnit.SECONDS : TimeUnit.MILLISECONDS;
    }

    private static void incrBy(byte[] key, long by, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(key);
        long current = 0;
        if (e != null) {
            if (!(e.value instanceof byte[] v)) {
                r.error(WRONGTYPE);
                return;
            }
            if (!Numbers.isLong(v)) {
                r.error(NOT_AN_INTEGER);
                return;
            }
            current = Numbers.parseLong(v);
        }
        if ((by < 0 && current < 0 && by < Long.MIN_VALUE - current)
                || (by > 0 && current > 0 && by > Long.MAX_VALUE - current)) {
            r.error("ERR increment or decrement would overflow");
            return;
        }
        long next = current + by;
        if (e != null) {
            keys.replace(e, Numbers.toBytes(next)); // the TTL stays, as in Redis
        } else {
            keys.put(key, Numbers.toBytes(next), false);
        }
        r.integer(next);
    }

    /**
     * {@code EXPIRE key n [NX|XX|GT|LT]}, and PEXPIRE, EXPIREAT, PEXPIREAT ({@code absolute}: n is
     * a Unix time): 1 if the TTL was set (or the key deleted, for a time already past), 0 if not.
     * Redis' order of checks: the options, the number, then the key.
     */
    static void expire(byte[][] argv, TimeUnit unit, boolean absolute, String name, Keyspace keys, Reply r) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        for (int j = 3; j < argv.length; j++) {
            byte[] o = argv[j];
            if (CommandTable.is(o, "nx")) {
                nx = true;
            } else if (CommandTable.is(o, "xx")) {
                xx = true;
            } else if (CommandTable.is(o, "gt")) {
                gt = true;
            } else if (CommandTable.is(o, "lt")) {
                lt = true;
            } else {
                r.error("ERR Unsupported option " + new String(o, java.nio.charset.StandardCharsets.UTF_8));
                return;
            }
        }
        if (nx && (xx || gt || lt)) {
            r.error("ERR NX and XX, GT or LT options at the same time are not compatible");
            return;
        }
        if (gt && lt) {
            r.error("ERR GT and LT options at the same time are not compatible");
            return;
        }
        if (!Numbers.isLong(argv[2])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long n = Numbers.parseLong(argv[2]);
        long base = absolute ? 0 : keys.wallMillis();
        if (unit == TimeUnit.SECONDS && (n > Long.MAX_VALUE / 1000 || n < Long.MIN_VALUE / 1000)) {
            r.error("ERR invalid expire time in '" + name + "' command");
            return;
        }
        long ms = unit.toMillis(n);
        if (ms > Long.MAX_VALUE - base) {
            r.error("ERR invalid expire time in '" + name + "' command");
            return;
        }
        long when = ms + base;
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.integer(0);
            return;
        }
        boolean hasTtl = e.expiry != null;
        if ((nx && hasTtl) || (xx && !hasTtl) || (gt && (!hasTtl || when <= e.expireAtMs))
                || (lt && hasTtl && when >= e.expireAtMs)) {
            r.integer(0);
            return;
        }
        keys.expireAtWall(e, when); // a time already past deletes the key at once, as Redis does
        r.integer(1);
    }
}
