package dev.loop.examples.resp;

import static dev.loop.examples.resp.StringCommands.NOT_AN_INTEGER;
import static dev.loop.examples.resp.StringCommands.WRONGTYPE;

import java.util.Map;

/**
 * The hash commands: {@code HSET}/{@code HMSET}, {@code HGET}, {@code HMGET}, {@code HDEL},
 * {@code HEXISTS}, {@code HLEN}, {@code HGETALL} (a map in RESP3), {@code HKEYS}, {@code HVALS},
 * {@code HINCRBY}, {@code HINCRBYFLOAT}, {@code HSETNX}, {@code HSTRLEN}, {@code HSCAN}. Not
 * thread-safe: the data loop's. Arity was checked by the caller.
 *
 * <p>{@code HSCAN} answers the whole hash with cursor 0 in one reply, as redis-server does for a
 * hash it keeps as a listpack (up to 128 fields); for a bigger one Redis would walk it in steps,
 * this still answers it whole, as {@code HGETALL} does.
 */
final class HashCommands {
    void execute(int id, byte[][] argv, Keyspace keys, Reply r) {
        switch (id) {
            case DataCommandTable.HSET, DataCommandTable.HMSET -> {
                if (argv.length % 2 == 1) {
                    Commands.wrongArity(r, id == DataCommandTable.HSET ? "hset" : "hmset");
                    return;
                }
                Keyspace.Entry e = writable(argv[1], keys, r);
                if (e == null) {
                    return;
                }
                HashValue h = (HashValue) e.value;
                int added = 0;
                for (int i = 2; i < argv.length; i += 2) {
                    added += h.map.put(new Blob(argv[i]), argv[i + 1]) == null ? 1 : 0;
                }
                keys.modified(e);
                if (id == DataCommandTable.HSET) {
                    r.integer(added);
                } else {
                    r.ok();
                }
            }
            case DataCommandTable.HSETNX -> {
                Keyspace.Entry e = writable(argv[1], keys, r);
                if (e == null) {
                    return;
                }
                HashValue h = (HashValue) e.value;
                boolean added = h.map.putIfAbsent(new Blob(argv[2]), argv[3]) == null;
                keys.modified(e);
                r.integer(added ? 1 : 0);
            }
            case DataCommandTable.HGET -> {
                HashValue h = readable(argv[1], keys, r);
                if (h != WRONG) {
                    r.bulk(h == null ? null : h.map.get(new Blob(argv[2])));
                }
            }
            case DataCommandTable.HMGET -> {
                HashValue h = readable(argv[1], keys, r);
                if (h != WRONG) {
                    r.arrayHeader(argv.length - 2);
                    for (int i = 2; i < argv.length; i++) {
                        r.bulk(h == null ? null : h.map.get(new Blob(argv[i])));
                    }
                }
            }
            case DataCommandTable.HDEL -> {
                Keyspace.Entry e = keys.find(argv[1]);
                if (e == null) {
                    r.integer(0);
                } else if (!(e.value instanceof HashValue h)) {
                    r.error(WRONGTYPE);
                } else {
                    int n = 0;
                    for (int i = 2; i < argv.length && h.size() > 0; i++) {
                        n += h.map.remove(new Blob(argv[i])) != null ? 1 : 0;
                    }
                    keys.modified(e);
                    r.integer(n);
                }
            }
            case DataCommandTable.HEXISTS -> {
                HashValue h = readable(argv[1], keys, r);
                if (h != WRONG) {
                    r.integer(h != null && h.map.containsKey(new Blob(argv[2])) ? 1 : 0);
                }
            }
            case DataCommandTable.HLEN -> {
                HashValue h = readable(argv[1], keys, r);
                if (h != WRONG) {
                    r.integer(h == null ? 0 : h.size());
                }
            }
            case DataCommandTable.HSTRLEN -> {
                HashValue h = readable(argv[1], keys, r);
                if (h != WRONG) {
                    byte[] v = h == null ? null : h.map.get(new Blob(argv[2]));
                    r.integer(v == null ? 0 : v.length);
                }
            }
            case DataCommandTable.HGETALL -> {
                HashValue h = readable(argv[1], keys, r);
                if (h != WRONG) {
                    r.mapHeader(h == null ? 0 : h.size());
                    if (h != null) {
                        for (Map.Entry<Blob, byte[]> f : h.map.entrySet()) {
                            r.bulk(f.getKey().bytes);
                            r.bulk(f.getValue());
                        }
                    }
                }
            }
            case DataCommandTable.HKEYS, DataCommandTable.HVALS -> {
                HashValue h = readable(argv[1], keys, r);
                if (h != WRONG) {
                    r.arrayHeader(h == null ? 0 : h.size());
                    if (h != null) {
                        for (Map.Entry<Blob, byte[]> f : h.map.entrySet()) {
                            r.bulk(id == DataCommandTable.HKEYS ? f.getKey().bytes : f.getValue());
                        }
                    }
                }
            }
            case DataCommandTable.HINCRBY -> hincrby(argv, keys, r);
            case DataCommandTable.HINCRBYFLOAT -> hincrbyfloat(argv, keys, r);
            case DataCommandTable.HSCAN -> hscan(argv, keys, r);
            default -> throw new IllegalArgumentException("not a hash command: " + id);
        }
    }

    /** What {@link #readable} returns for a key of another type, once WRONGTYPE is replied. */
    private static final HashValue WRONG = new HashValue();

    /** The hash at {@code key}, null if there is none, {@link #WRONG} (replied) if it is another type. */
    private static HashValue readable(byte[] key, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(key);
        if (e == null) {
            return null;
        }
        if (e.value instanceof HashValue h) {
            return h;
        }
        r.error(WRONGTYPE);
        return WRONG;
    }

    /** The entry of the hash at {@code key}, created empty if there is none; null (replied) for another type. */
    private static Keyspace.Entry writable(byte[] key, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(key);
        if (e == null) {
            return keys.put(key, new HashValue(), false); // filled before the command ends, or deleted by modified()
        }
        if (e.value instanceof HashValue) {
            return e;
        }
        r.error(WRONGTYPE);
        return null;
    }

    private static void hincrby(byte[][] argv, Keyspace keys, Reply r) {
        if (!Numbers.isLong(argv[3])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long by = Numbers.parseLong(argv[3]);
        Keyspace.Entry e = writable(argv[1], keys, r);
        if (e == null) {
            return;
        }
        HashValue h = (HashValue) e.value;
        Blob field = new Blob(argv[2]);
        byte[] old = h.map.get(field);
        long current = 0;
        if (old != null) {
            if (!Numbers.isLong(old)) {
                r.error("ERR hash value is not an integer");
                return;
            }
            current = Numbers.parseLong(old);
        }
        if ((by < 0 && current < 0 && by < Long.MIN_VALUE - current)
                || (by > 0 && current > 0 && by > Long.MAX_VALUE - current)) {
            keys.modified(e); // a hash just created for this is deleted again
            r.error("ERR increment or decrement would overflow");
            return;
        }
        h.map.put(field, Numbers.toBytes(current + by));
        keys.modified(e);
        r.integer(current + by);
    }

    private static void hincrbyfloat(byte[][] argv, Keyspace keys, Reply r) {
        if (StringEditCommands.isInfinity(argv[3])) {
            r.error("ERR value is NaN or Infinity");
            return;
        }
        if (LongDouble.parse(argv[3]) == null) {
            r.error("ERR value is not a valid float");
            return;
        }
        Keyspace.Entry e = writable(argv[1], keys, r);
        if (e == null) {
            return;
        }
        HashValue h = (HashValue) e.value;
        Blob field = new Blob(argv[2]);
        byte[] sum = StringEditCommands.addFloat(h.map.get(field), argv[3], "ERR hash value is not a float", true, r);
        if (sum != null) {
            h.map.put(field, sum);
            r.bulk(sum);
        }
        keys.modified(e);
    }

    private static void hscan(byte[][] argv, Keyspace keys, Reply r) {
        if (KeyCommands.cursor(argv[2], r) == null) {
            return;
        }
        HashValue h = readable(argv[1], keys, r);
        if (h == WRONG) {
            return;
        }
        KeyCommands.ScanOptions o = h == null ? null : KeyCommands.ScanOptions.parse(argv, 3, false, r);
        if (h != null && o == null) {
            return;
        }
        r.arrayHeader(2);
        r.bulk("0");
        if (h == null) {
            r.arrayHeader(0);
            return;
        }
        int n = 0;
        for (Blob f : h.map.keySet()) {
            n += o.pattern() == null || GlobPattern.matches(o.pattern(), f.bytes) ? 2 : 0;
        }
        r.arrayHeader(n);
        for (Map.Entry<Blob, byte[]> f : h.map.entrySet()) {
            if (o.pattern() == null || GlobPattern.matches(o.pattern(), f.getKey().bytes)) {
                r.bulk(f.getKey().bytes);
                r.bulk(f.getValue());
            }
        }
    }
}
