package dev.loop.examples.resp;

import static dev.loop.examples.resp.StringCommands.NOT_AN_INTEGER;
import static dev.loop.examples.resp.StringCommands.SYNTAX;
import static dev.loop.examples.resp.StringCommands.WRONGTYPE;

import java.util.Arrays;

/**
 * The list commands: {@code LPUSH}/{@code RPUSH} (and their {@code X} forms), {@code LPOP}/
 * {@code RPOP} (with a count), {@code LLEN}, {@code LRANGE}, {@code LINDEX}, {@code LSET},
 * {@code LREM}, {@code LTRIM}, {@code LINSERT}, {@code LPOS}, {@code LMOVE}/{@code RPOPLPUSH},
 * and the blocking {@code BLPOP}/{@code BRPOP}/{@code BLMOVE} (see {@link Blocking}). Not
 * thread-safe: the data loop's. Arity was checked by the caller.
 *
 * <p>{@code LRANGE key 0 -1} on a long list answers it whole in one reply: as large as the list
 * the server already holds (what a client sent), encoded once into the connection's buffer; the
 * batch it is part of stops there until the client has read it (see {@link RespConnection}).
 */
final class ListCommands {
    private final Blocking blocking;

    ListCommands(Blocking blocking) {
        this.blocking = blocking;
    }

    void execute(int id, byte[][] argv, Session session, Keyspace keys, Reply r) {
        switch (id) {
            case DataCommandTable.LPUSH, DataCommandTable.RPUSH, DataCommandTable.LPUSHX,
                 DataCommandTable.RPUSHX -> push(argv, id == DataCommandTable.LPUSH || id == DataCommandTable.LPUSHX,
                    id == DataCommandTable.LPUSHX || id == DataCommandTable.RPUSHX, keys, r);
            case DataCommandTable.LPOP, DataCommandTable.RPOP -> pop(argv, id == DataCommandTable.LPOP, keys, r);
            case DataCommandTable.LLEN -> {
                ListValue l = readable(argv[1], keys, r);
                if (l != WRONG) {
                    r.integer(l == null ? 0 : l.size());
                }
            }
            case DataCommandTable.LRANGE -> lrange(argv, keys, r);
            case DataCommandTable.LINDEX -> {
                ListValue l = readable(argv[1], keys, r);
                if (l == WRONG) {
                    return;
                }
                if (l == null) {
                    r.nullBulk();
                } else if (!Numbers.isLong(argv[2])) {
                    r.error(NOT_AN_INTEGER);
                } else {
                    long i = Numbers.parseLong(argv[2]);
                    i = i < 0 ? l.size() + i : i;
                    r.bulk(i < 0 || i >= l.size() ? null : l.get((int) i));
                }
            }
            case DataCommandTable.LSET -> lset(argv, keys, r);
            case DataCommandTable.LREM -> lrem(argv, keys, r);
            case DataCommandTable.LTRIM -> ltrim(argv, keys, r);
            case DataCommandTable.LINSERT -> linsert(argv, keys, r);
            case DataCommandTable.LPOS -> lpos(argv, keys, r);
            case DataCommandTable.LMOVE, DataCommandTable.RPOPLPUSH -> {
                boolean fromLeft;
                boolean toLeft;
                if (id == DataCommandTable.RPOPLPUSH) {
                    fromLeft = false;
                    toLeft = true;
                } else {
                    Boolean f = side(argv[3]);
                    Boolean t = side(argv[4]);
                    if (f == null || t == null) {
                        r.error(SYNTAX);
                        return;
                    }
                    fromLeft = f;
                    toLeft = t;
                }
                Keyspace.Entry src = keys.find(argv[1]);
                if (src == null) {
                    r.nullBulk();
                } else if (!(src.value instanceof ListValue)) {
                    r.error(WRONGTYPE);
                } else {
                    byte[] moved = move(src, argv[2], fromLeft, toLeft, keys, r);
                    if (moved != null) {
                        r.bulk(moved);
                    }
                }
            }
            case DataCommandTable.BLPOP, DataCommandTable.BRPOP -> blockingPop(argv, id == DataCommandTable.BLPOP,
                    session, keys, r);
            case DataCommandTable.BLMOVE -> blockingMove(argv, session, keys, r);
            default -> throw new IllegalArgumentException("not a list command: " + id);
        }
    }

    private static final ListValue WRONG = new ListValue();

    /** The list at {@code key}, null if there is none, {@link #WRONG} (replied) if it is another type. */
    static ListValue readable(byte[] key, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(key);
        if (e == null) {
            return null;
        }
        if (e.value instanceof ListValue l) {
            return l;
        }
        r.error(WRONGTYPE);
        return WRONG;
    }

    /** LEFT: true, RIGHT: false, anything else: null. */
    static Boolean side(byte[] arg) {
        return CommandTable.is(arg, "left") ? Boolean.TRUE : CommandTable.is(arg, "right") ? Boolean.FALSE : null;
    }

    private static void push(byte[][] argv, boolean left, boolean onlyExisting, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(argv[1]);
        if (e != null && !(e.value instanceof ListValue)) {
            r.error(WRONGTYPE);
            return;
        }
        if (e == null) {
            if (onlyExisting) {
                r.integer(0);
                return;
            }
            e = keys.put(argv[1], new ListValue(), false);
        }
        ListValue l = (ListValue) e.value;
        for (int i = 2; i < argv.length; i++) {
            if (left) {
                l.addFirst(argv[i]);
            } else {
                l.addLast(argv[i]);
            }
        }
        keys.modified(e);
        r.integer(l.size());
    }

    private static void pop(byte[][] argv, boolean left, Keyspace keys, Reply r) {
        if (argv.length > 3) {
            Commands.wrongArity(r, left ? "lpop" : "rpop");
            return;
        }
        long count = -1;
        if (argv.length == 3) {
            if (!Numbers.isLong(argv[2]) || Numbers.parseLong(argv[2]) < 0) {
                r.error("ERR value is out of range, must be positive");
                return;
            }
            count = Numbers.parseLong(argv[2]);
        }
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            if (count >= 0) {
                r.nullArray();
            } else {
                r.nullBulk();
            }
            return;
        }
        if (!(e.value instanceof ListValue l)) {
            r.error(WRONGTYPE);
            return;
        }
        if (count < 0) {
            r.bulk(left ? l.removeFirst() : l.removeLast());
        } else if (count == 0) {
            r.arrayHeader(0);
        } else {
            int n = (int) Math.min(count, l.size());
            r.arrayHeader(n);
            for (int i = 0; i < n; i++) {
                r.bulk(left ? l.removeFirst() : l.removeLast());
            }
        }
        keys.modified(e);
    }

    private static void lrange(byte[][] argv, Keyspace keys, Reply r) {
        if (!Numbers.isLong(argv[2]) || !Numbers.isLong(argv[3])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long start = Numbers.parseLong(argv[2]);
        long end = Numbers.parseLong(argv[3]);
        ListValue l = readable(argv[1], keys, r);
        if (l == WRONG) {
            return;
        }
        if (l == null) {
            r.arrayHeader(0);
            return;
        }
        long len = l.size();
        start = start < 0 ? len + start : start;
        end = end < 0 ? len + end : end;
        start = Math.max(0, start);
        if (start > end || start >= len) {
            r.arrayHeader(0);
            return;
        }
        end = Math.min(end, len - 1);
        r.arrayHeader((int) (end - start + 1));
        for (long i = start; i <= end; i++) {
            r.bulk(l.get((int) i));
        }
    }

    private static void lset(byte[][] argv, Keyspace keys, Reply r) {
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.error("ERR no such key");
            return;
        }
        if (!(e.value instanceof ListValue l)) {
            r.error(WRONGTYPE);
            return;
        }
        if (!Numbers.isLong(argv[2])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long i = Numbers.parseLong(argv[2]);
        i = i < 0 ? l.size() + i : i;
        if (i < 0 || i >= l.size()) {
            r.error("ERR index out of range");
            return;
        }
        l.set((int) i, argv[3]);
        keys.modified(e);
        r.ok();
    }

    private static void lrem(byte[][] argv, Keyspace keys, Reply r) {
        if (!Numbers.isLong(argv[2])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long count = Numbers.parseLong(argv[2]);
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.integer(0);
            return;
        }
        if (!(e.value instanceof ListValue l)) {
            r.error(WRONGTYPE);
            return;
        }
        // one pass keeping the survivors in place: O(n) whatever the number removed
        byte[] x = argv[3];
        long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
        int n = l.size();
        boolean[] drop = new boolean[n];
        long removed = 0;
        for (int k = 0; k < n && removed < limit; k++) {
            int i = count < 0 ? n - 1 - k : k;
            if (Arrays.equals(l.get(i), x)) {
                drop[i] = true;
                removed++;
            }
        }
        if (removed > 0) {
            int w = 0;
            for (int i = 0; i < n; i++) {
                if (!drop[i]) {
                    l.set(w++, l.get(i));
                }
            }
            if (w == 0) {
                keys.remove(e);
            } else {
                l.retain(0, w - 1);
                keys.modified(e);
            }
        }
        r.integer(removed);
    }

    private static void ltrim(byte[][] argv, Keyspace keys, Reply r) {
        if (!Numbers.isLong(argv[2]) || !Numbers.isLong(argv[3])) {
            r.error(NOT_AN_INTEGER);
            return;
        }
        long start = Numbers.parseLong(argv[2]);
        long end = Numbers.parseLong(argv[3]);
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.ok();
            return;
        }
        if (!(e.value instanceof ListValue l)) {
            r.error(WRONGTYPE);
            return;
        }
        long len = l.size();
        start = start < 0 ? len + start : start;
        end = end < 0 ? len + end : end;
        start = Math.max(0, start);
        if (start > end || start >= len) {
            keys.remove(e);
        } else {
            end = Math.min(end, len - 1);
            if (start > 0 || end < len - 1) {
                l.retain((int) start, (int) end);
            }
            keys.modified(e);
        }
        r.ok();
    }

    private static void linsert(byte[][] argv, Keyspace keys, Reply r) {
        boolean after = CommandTable.is(argv[2], "after");
        if (!after && !CommandTable.is(argv[2], "before")) {
            r.error(SYNTAX);
            return;
        }
        Keyspace.Entry e = keys.find(argv[1]);
        if (e == null) {
            r.integer(0);
            return;
        }
        if (!(e.value instanceof ListValue l)) {
            r.error(WRONGTYPE);
            return;
        }
        for (int i = 0; i < l.size(); i++) {
            if (Arrays.equals(l.get(i), argv[3])) {
                l.insert(after ? i + 1 : i, argv[4]);
                keys.modified(e);
                r.integer(l.size());
                return;
            }
        }
        r.integer(-1);
    }

    private static void lpos(byte[][] argv, Keyspace keys, Reply r) {
        long rank = 1;
        long count = -1;
        long maxlen = 0;
        for (int j = 3; j < argv.length; j++) {
            boolean more = j + 1 < argv.length;
            if (CommandTable.is(argv[j], "rank") && more) {
                byte[] v = argv[++j];
                if (!Numbers.isLong(v)) {
                    r.error(NOT_AN_INTEGER);
                    return;
                }
                rank = Numbers.parseLong(v); // Long.MIN_VALUE too: Redis takes it as "from the tail, any match"
                if (rank == 0) {
                    r.error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                            + "or use negative to start from the end of the list");
                    return;
                }
            } else if (CommandTable.is(argv[j], "count") && more) {
                byte[] v = argv[++j];
                if (!Numbers.isLong(v) || Numbers.parseLong(v) < 0) {
                    r.error("ERR COUNT can't be negative");
                    return;
                }
                count = Numbers.parseLong(v);
            } else if (CommandTable.is(argv[j], "maxlen") && more) {
                byte[] v = argv[++j];
                if (!Numbers.isLong(v) || Numbers.parseLong(v) < 0) {
                    r.error("ERR MAXLEN can't be negative");
                    return;
                }
                maxlen = Numbers.parseLong(v);
            } else {
                r.error(SYNTAX);
                return;
            }
        }
        ListValue l = readable(argv[1], keys, r);
        if (l == WRONG) {
            return;
        }
        if (l == null) {
            if (count != -1) {
                r.arrayHeader(0);
            } else {
                r.nullBulk();
            }
            return;
        }
        boolean fromTail = rank < 0;
        long want = Math.abs(rank);
        int n = l.size();
        long matches = 0;
        java.util.List<Long> found = new java.util.ArrayList<>();
        for (int k = 0; k < n && (maxlen == 0 || k < maxlen); k++) {
            int i = fromTail ? n - 1 - k : k;
            if (Arrays.equals(l.get(i), argv[2])) {
                matches++;
                if (matches >= want) {
                    found.add((long) i);
                    if (count == -1 || (count > 0 && found.size() >= count)) {
                        break;
                    }
                }
            }
        }
        if (count == -1) {
            if (found.isEmpty()) {
                r.nullBulk();
            } else {
                r.integer(found.get(0));
            }
        } else {
            r.arrayHeader(found.size());
            found.forEach(r::integer);
        }
    }

    /**
     * Pops from the list of {@code src} and pushes onto the list at {@code dstKey} (created if
     * absent): the element moved, or null with WRONGTYPE replied if the destination is another
     * type (nothing moved then).
     */
    static byte[] move(Keyspace.Entry src, byte[] dstKey, boolean fromLeft, boolean toLeft, Keyspace keys, Reply r) {
        Keyspace.Entry dst = keys.find(dstKey);
        if (dst != null && !(dst.value instanceof ListValue)) {
            r.error(WRONGTYPE);
            return null;
        }
        ListValue from = (ListValue) src.value;
        byte[] v = fromLeft ? from.removeFirst() : from.removeLast();
        if (dst == null) {
            dst = keys.put(dstKey, new ListValue(), false);
        }
        ListValue to = (ListValue) dst.value;
        if (toLeft) {
            to.addFirst(v);
        } else {
            to.addLast(v);
        }
        keys.modified(dst);
        if (src != dst) {
            keys.modified(src);
        }
        return v;
    }

    private void blockingPop(byte[][] argv, boolean left, Session session, Keyspace keys, Reply r) {
        long timeoutMs = Blocking.timeoutMillis(argv[argv.length - 1], r);
        if (timeoutMs < 0) {
            return;
        }
        for (int i = 1; i < argv.length - 1; i++) {
            Keyspace.Entry e = keys.find(argv[i]);
            if (e != null) {
                if (!(e.value instanceof ListValue l)) {
                    r.error(WRONGTYPE);
                    return;
                }
                r.arrayHeader(2);
                r.bulk(argv[i]);
                r.bulk(left ? l.removeFirst() : l.removeLast());
                keys.modified(e);
                return;
            }
        }
        if (session.denyBlocking) {
            r.nullArray();
            return;
        }
        blocking.block(session, keys, Arrays.copyOfRange(argv, 1, argv.length - 1), left, null, false, timeoutMs);
    }

    private void blockingMove(byte[][] argv, Session session, Keyspace keys, Reply r) {
        Boolean f = side(argv[3]);
        Boolean t = side(argv[4]);
        if (f == null || t == null) {
            r.error(SYNTAX);
            return;
        }
        long timeoutMs = Blocking.timeoutMillis(argv[5], r);
        if (timeoutMs < 0) {
            return;
        }
        Keyspace.Entry src = keys.find(argv[1]);
        if (src != null) {
            if (!(src.value instanceof ListValue)) {
                r.error(WRONGTYPE);
                return;
            }
            byte[] moved = move(src, argv[2], f, t, keys, r);
            if (moved != null) {
                r.bulk(moved);
            }
            return;
        }
        if (session.denyBlocking) {
            r.nullBulk(); // BLMOVE's immediate answer is the null bulk, BLPOP's the null array, as Redis'
            return;
        }
        blocking.block(session, keys, new byte[][] {argv[1]}, f, argv[2], t, timeoutMs);
    }
}
