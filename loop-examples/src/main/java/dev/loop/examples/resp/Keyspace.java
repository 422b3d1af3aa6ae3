package dev.loop.examples.resp;

import dev.loop.Loop;
import dev.loop.TimerHandle;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The keys and their values, and their expiry as loop timers. Not thread-safe: lives on one loop
 * (the data loop), like Redis' single-threaded keyspace.
 *
 * <p>A chained hash table keyed by the argument arrays themselves: a lookup hashes the key's bytes
 * and allocates nothing. (The hash is not keyed: a client choosing colliding keys on purpose
 * lengthens chains, as it would in a {@code HashMap}; Redis uses keyed SipHash against that.) A key with a time to live holds a {@link TimerHandle} from {@link Loop#callAt}: the
 * timer deletes the key when it fires; overwriting the key, deleting it, or setting a new TTL
 * cancels the timer (cancel is O(1) on the wheel, O(log n) on the heap) so millions of keys with
 * TTLs are millions of loop timers and nothing else. An access also checks the deadline, so a key
 * whose timer is still queued behind others is never seen after it expired.
 *
 * <p>A value is a string ({@code byte[]}), a {@link HashValue}, a {@link ListValue} or a
 * {@link SetValue}. Every write of a key goes through {@link #put}, {@link #replace},
 * {@link #modified}, {@link #remove} or the TTL setters, and each of them ends in
 * {@link #written}: the one place a write of a key is seen. {@link #modified} also deletes an
 * aggregate left empty, as Redis does, so no command can leave an empty hash, list or set behind.
 *
 * <p>Absolute expiry times ({@code EXPIREAT}, {@code EXPIRETIME}) are wall-clock milliseconds, the
 * loop's clock is monotonic: a key keeps both its wall-clock deadline (what {@code EXPIRETIME}
 * answers, exactly as set) and a loop-time timer computed once from the two clocks' difference at
 * the moment it was set (what expires it and what {@code TTL} counts down). A step of the wall
 * clock after that does not move the key's expiry, as a step does not in Redis between two checks.
 *
 * <p>{@link #written} tells the WATCHes of this database ({@link Watches}), so that WATCH sees
 * writes from any client. It costs nothing while nobody watches.
 */
final class Keyspace {
    private static final int INITIAL_CAPACITY = 16;
    /**
     * The longest a loop timer is set for (about 146 years), so a deadline in loop nanoseconds
     * never overflows; a key due later keeps its exact wall-clock deadline and simply outlives the
     * process.
     */
    static final long MAX_TIMER_MS = Long.MAX_VALUE / 2 / 1_000_000;

    /** A key, its value, its expiry timer (null: no TTL). Its own timer callback. */
    final class Entry implements Runnable {
        final byte[] key;
        final int hash;
        Object value;
        TimerHandle expiry;
        /** The deadline in wall-clock milliseconds, meaningful while {@link #expiry} is set. */
        long expireAtMs;
        Entry next;

        Entry(byte[] key, int hash, Object value) {
            this.key = key;
            this.hash = hash;
            this.value = value;
        }

        /** The timer fired: the key is due. */
        @Override
        public void run() {
            expiry = null;
            unlink(this);
            watches.touched(key); // an expired key fails a WATCH, as in Redis 6.0.9 and later
        }
    }

    private final Loop loop;
    /** Who WATCHes which key of this database. */
    final Watches watches = new Watches();
    private final LongSupplier wallClock;
    /** The wall clock as the command running now read it: one reading per command, as Redis' snapshot. */
    private long wallNow;
    private Entry[] table = new Entry[INITIAL_CAPACITY];
    private int size;
    /** Told when a list appears at a key (blocked pops wait for that), or null. */
    private java.util.function.BiConsumer<Keyspace, byte[]> onList;

    Keyspace(Loop loop) {
        this(loop, System::currentTimeMillis);
    }

    /** A keyspace whose absolute times read {@code wallClock} (milliseconds since the epoch). */
    Keyspace(Loop loop, LongSupplier wallClock) {
        this.loop = loop;
        this.wallClock = wallClock;
    }

    /** Tells {@code listener} of every list put at a key (new or replacing another value). */
    void onListCreated(java.util.function.BiConsumer<Keyspace, byte[]> listener) {
        this.onList = listener;
    }

    /** The live entry of {@code key}, or null (an expired one is removed on the way). */
    Entry find(byte[] key) {
        int h = hash(key);
        for (Entry e = table[h & (table.length - 1)]; e != null; e = e.next) {
            if (e.hash == h && java.util.Arrays.equals(e.key, key)) {
                if (e.expiry != null && loop.time() - e.expiry.deadline() >= 0) {
                    remove(e);
                    return null;
                }
                return e;
            }
        }
        return null;
    }

    /** Whether {@code e}'s deadline has passed (its timer may not have run yet). */
    boolean expired(Entry e) {
        return e.expiry != null && loop.time() - e.expiry.deadline() >= 0;
    }

    /**
     * Sets {@code key} to {@code value}; with {@code keepTtl} an existing TTL stays, else it is
     * dropped (its timer cancelled).
     *
     * @return the entry, new or updated
     */
    Entry put(byte[] key, Object value, boolean keepTtl) {
        Entry e = find(key);
        if (e != null) {
            e.value = value;
            if (!keepTtl && e.expiry != null) {
                e.expiry.cancel();
                e.expiry = null;
            }
            written(e.key, value);
            return e;
        }
        int h = hash(key);
        if (size + 1 > table.length - (table.length >>> 2)) {
            resize();
        }
        e = new Entry(key, h, value);
        int i = h & (table.length - 1);
        e.next = table[i];
        table[i] = e;
        size++;
        written(key, value);
        return e;
    }

    /** Gives {@code e} a new value, keeping its TTL (INCR, APPEND, SETRANGE do). */
    void replace(Entry e, Object value) {
        e.value = value;
        written(e.key, value);
    }

    /**
     * Says {@code e}'s hash, list or set was changed in place; deletes the key if it is left
     * empty.
     */
    void modified(Entry e) {
        Object v = e.value;
        boolean empty = v instanceof HashValue h ? h.size() == 0
                : v instanceof ListValue l ? l.size() == 0 : v instanceof SetValue s && s.size() == 0;
        if (empty) {
            remove(e);
        } else {
            written(e.key, null);
        }
    }

    /** Deletes {@code key}; true if it was there. */
    boolean delete(byte[] key) {
        Entry e = find(key);
        if (e == null) {
            return false;
        }
        remove(e);
        return true;
    }

    /**
     * Reads the wall clock for the command about to run: every absolute time it computes and
     * converts back to a duration uses this one reading, so {@code SET k v PX 100} gives a timer
     * of exactly 100 ms of loop time.
     */
    void startCommand() {
        wallNow = wallClock.getAsLong();
    }

    /**
     * Gives {@code e} the wall-clock deadline {@code unixMs}, replacing any it had; one already
     * past deletes the key at once.
     */
    void expireAtWall(Entry e, long unixMs) {
        long inMs = unixMs - wallNow;
        if (inMs <= 0) {
            remove(e);
            return;
        }
        if (e.expiry != null) {
            e.expiry.cancel();
        }
        e.expireAtMs = unixMs;
        e.expiry = loop.callAt(loop.time() + Math.min(inMs, MAX_TIMER_MS) * 1_000_000, e);
        written(e.key, null);
    }

    /** Drops {@code e}'s TTL; true if it had one. */
    boolean persist(Entry e) {
        if (e.expiry == null) {
            return false;
        }
        e.expiry.cancel();
        e.expiry = null;
        written(e.key, null);
        return true;
    }

    /** Milliseconds since the epoch, by the clock absolute expiry times are read against. */
    long wallMillis() {
        return wallNow;
    }

    /** Milliseconds until {@code e} expires, rounded up (at least 0), or -1 without a TTL. */
    long ttlMillis(Entry e) {
        if (e.expiry == null) {
            return -1;
        }
        long wallLeft = e.expireAtMs - wallClock.getAsLong();
        if (wallLeft > MAX_TIMER_MS) {
            return wallLeft; // beyond the timer's cap: the wall-clock deadline is the truth
        }
        return Math.max(0, (e.expiry.deadline() - loop.time() + 999_999) / 1_000_000);
    }

    void remove(Entry e) {
        if (e.expiry != null) {
            e.expiry.cancel();
            e.expiry = null;
        }
        unlink(e);
        written(e.key, null);
    }

    /**
     * The one place every write of a key passes (a value set, changed in place, deleted, or its
     * TTL changed); {@code value} is the new value where one was put, else null.
     */
    private void written(byte[] key, Object value) {
        watches.touched(key);
        if (value instanceof ListValue && onList != null) {
            onList.accept(this, key);
        }
    }

    /** Keys with a TTL, for INFO's keyspace section: a walk of the table, as INFO is rare. */
    int expiring() {
        int n = 0;
        for (Entry head : table) {
            for (Entry e = head; e != null; e = e.next) {
                n += e.expiry != null ? 1 : 0;
            }
        }
        return n;
    }

    /** Keys held, counting expired ones whose timer has not fired yet (as Redis' DBSIZE does). */
    int size() {
        return size;
    }

    /** Deletes every key and cancels every timer. */
    void clear() {
        if (watches.size() > 0) {
            watches.flushed(k -> find(k) != null);
        }
        for (Entry head : table) {
            for (Entry e = head; e != null; e = e.next) {
                if (e.expiry != null) {
                    e.expiry.cancel();
                    e.expiry = null;
                }
                written(e.key, null);
            }
        }
        table = new Entry[INITIAL_CAPACITY];
        size = 0;
    }

    /** The loop this keyspace lives on. */
    Loop loop() {
        return loop;
    }

    /** Loop time now, for deadlines. */
    long now() {
        return loop.time();
    }

    /**
     * One step of a {@code SCAN}: adds the entries of the bucket {@code cursor} names to
     * {@code into} (expired ones too: the caller drops them), and returns the next cursor, 0 when
     * the walk is over.
     *
     * <p>The cursor is Redis' reverse-binary one: the bucket index's bits are counted up from the
     * high end. The table only grows by doubling (it never shrinks; {@link #clear} starts a new
     * one, with none of the old keys), and a bucket of the small table is split into buckets of
     * the big one that come after it in this order, so a key present from the walk's start to its
     * end is returned at least once whatever grows in between (possibly more than once).
     */
    long scan(long cursor, List<Entry> into) {
        long mask = table.length - 1;
        for (Entry e = table[(int) (cursor & mask)]; e != null; e = e.next) {
            into.add(e);
        }
        cursor |= ~mask;
        cursor = Long.reverse(cursor);
        cursor++;
        return Long.reverse(cursor);
    }

    /**
     * A key at random, or null if there are none. Probes random buckets; a table left sparse by
     * deletions (it never shrinks) is walked from a random bucket after a bounded number of misses.
     */
    Entry random() {
        if (size == 0) {
            return null;
        }
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int start = rnd.nextInt(table.length);
        for (int probe = 0; probe < table.length + 64; probe++) {
            int i = probe < 64 ? rnd.nextInt(table.length) : (start + probe) & (table.length - 1);
            int n = 0;
            for (Entry e = table[i]; e != null; e = e.next) {
                n++;
            }
            if (n > 0) {
                Entry e = table[i];
                for (int k = rnd.nextInt(n); k > 0; k--) {
                    e = e.next;
                }
                return e;
            }
        }
        return null;
    }

    /** Calls {@code visit} with every entry, expired ones included; {@code visit} must not change the table. */
    void forEach(java.util.function.Consumer<Entry> visit) {
        for (Entry head : table) {
            for (Entry e = head; e != null; e = e.next) {
                visit.accept(e);
            }
        }
    }

    private void unlink(Entry e) {
        int i = e.hash & (table.length - 1);
        Entry prev = null;
        for (Entry x = table[i]; x != null; prev = x, x = x.next) {
            if (x == e) {
                if (prev == null) {
                    table[i] = x.next;
                } else {
                    prev.next = x.next;
                }
                x.next = null;
                size--;
                return;
            }
        }
    }

    private void resize() {
        Entry[] old = table;
        Entry[] t = new Entry[old.length * 2];
        for (Entry head : old) {
            Entry e = head;
            while (e != null) {
                Entry next = e.next;
                int i = e.hash & (t.length - 1);
                e.next = t[i];
                t[i] = e;
                e = next;
            }
        }
        table = t;
    }

    /** Murmur3's finalizer over a polynomial hash: keys that differ a little land far apart. */
    private static int hash(byte[] key) {
        int h = 1;
        for (byte b : key) {
            h = 31 * h + b;
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
