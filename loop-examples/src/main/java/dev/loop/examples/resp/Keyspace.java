package dev.loop.examples.resp;

import dev.loop.Loop;
import dev.loop.TimerHandle;

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
 * <p>Every change to a key, through these methods or in place, is reported to {@link #touched}
 * (the mutators here call it; a command that changes an entry's value in place calls it itself),
 * so that WATCH sees writes from any client. It costs nothing while nobody watches.
 */
final class Keyspace {
    private static final int INITIAL_CAPACITY = 16;

    /** A key, its value, its expiry timer (null: no TTL). Its own timer callback. */
    final class Entry implements Runnable {
        final byte[] key;
        final int hash;
        byte[] value;
        TimerHandle expiry;
        Entry next;

        Entry(byte[] key, int hash, byte[] value) {
            this.key = key;
            this.hash = hash;
            this.value = value;
        }

        /** The timer fired: the key is due. */
        @Override
        public void run() {
            expiry = null;
            unlink(this);
            touched(key);
        }
    }

    private final Loop loop;
    /** Who WATCHes which key of this database. */
    final Watches watches = new Watches();
    private Entry[] table = new Entry[INITIAL_CAPACITY];
    private int size;

    Keyspace(Loop loop) {
        this.loop = loop;
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

    /** The value of {@code key}, or null. */
    byte[] get(byte[] key) {
        Entry e = find(key);
        return e == null ? null : e.value;
    }

    /**
     * Sets {@code key} to {@code value}; with {@code keepTtl} an existing TTL stays, else it is
     * dropped (its timer cancelled).
     *
     * @return the entry, new or updated
     */
    Entry put(byte[] key, byte[] value, boolean keepTtl) {
        touched(key);
        Entry e = find(key);
        if (e != null) {
            e.value = value;
            if (!keepTtl) {
                persist(e);
            }
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
        return e;
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

    /** Gives {@code e} a deadline in loop time, replacing any it had. */
    void expireAt(Entry e, long deadlineNanos) {
        touched(e.key);
        if (e.expiry != null) {
            e.expiry.cancel();
        }
        e.expiry = loop.callAt(deadlineNanos, e);
    }

    /** Drops {@code e}'s TTL; true if it had one. */
    boolean persist(Entry e) {
        if (e.expiry == null) {
            return false;
        }
        e.expiry.cancel();
        e.expiry = null;
        touched(e.key);
        return true;
    }

    /** Nanoseconds until {@code e} expires (at least 0), or -1 without a TTL. */
    long ttlNanos(Entry e) {
        return e.expiry == null ? -1 : Math.max(0, e.expiry.deadline() - loop.time());
    }

    void remove(Entry e) {
        if (e.expiry != null) {
            e.expiry.cancel();
            e.expiry = null;
        }
        unlink(e);
        touched(e.key);
    }

    /** {@code key} changed: marks the transactions of the clients watching it to fail. */
    void touched(byte[] key) {
        watches.touched(key);
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
            }
        }
        table = new Entry[INITIAL_CAPACITY];
        size = 0;
    }

    /** Loop time now, for deadlines. */
    long now() {
        return loop.time();
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
