package dev.loop.examples.resp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys of one database that clients WATCH, and who watches each: a change to such a key marks
 * its watchers' transactions to fail, as Redis' {@code touchWatchedKey} does. Not thread-safe: the
 * data loop's, with its {@link Keyspace}.
 *
 * <p>A write to a key nobody watches costs one {@code isEmpty} check: no hashing, no allocation.
 * Only while someone watches does a write look its key up (wrapping it to do so).
 */
final class Watches {
    /** A key as a map key: its bytes, compared by content. */
    record Key(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    /** One session's watch of one key, kept by the session so UNWATCH can undo it. */
    record Watched(Watches in, Key key) {
    }

    private final Map<Key, List<Session>> watchers = new HashMap<>();

    /** {@code s} watches {@code key} (again: no effect). */
    void watch(Session s, byte[] key) {
        Key k = new Key(key);
        List<Session> l = watchers.computeIfAbsent(k, x -> new ArrayList<>(1));
        if (!l.contains(s)) {
            l.add(s);
            s.watched.add(new Watched(this, k));
        }
    }

    /** {@code key} changed (was written, deleted, expired, or had its TTL changed). */
    void touched(byte[] key) {
        if (watchers.isEmpty()) {
            return;
        }
        List<Session> l = watchers.get(new Key(key));
        if (l != null) {
            for (Session s : l) {
                s.watchDirty = true;
            }
        }
    }

    /** Every watched key for which {@code exists} says it was there changed (FLUSHDB, FLUSHALL). */
    void flushed(java.util.function.Predicate<byte[]> existed) {
        watchers.forEach((k, l) -> {
            if (existed.test(k.bytes())) {
                l.forEach(s -> s.watchDirty = true);
            }
        });
    }

    /** Drops every watch of {@code s}'s, in every database, and the mark they left. */
    static void unwatchAll(Session s) {
        for (Watched w : s.watched) {
            List<Session> l = w.in().watchers.get(w.key());
            if (l != null) {
                l.remove(s);
                if (l.isEmpty()) {
                    w.in().watchers.remove(w.key());
                }
            }
        }
        s.watched.clear();
        s.watchDirty = false;
    }

    int size() {
        return watchers.size();
    }
}
