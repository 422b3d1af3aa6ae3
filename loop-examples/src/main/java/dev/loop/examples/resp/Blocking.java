package dev.loop.examples.resp;

import dev.loop.Loop;
import dev.loop.TimerHandle;
import dev.loop.examples.io.OutputBuffer;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Clients blocked in {@code BLPOP}, {@code BRPOP} or {@code BLMOVE}, waiting for a list to appear
 * at one of their keys. Not thread-safe: lives on the data loop with the keyspace, so with
 * {@code --loops N} blocking is the data loop's whatever loop a client reads on.
 *
 * <p>A blocked command leaves a {@link Waiter} in {@link Session#blocked}; its connection parks
 * the rest of its batch (see {@link RespConnection}): nothing blocks the loop. Each key keeps its
 * waiters first come first served; a waiter on several keys waits in each key's queue and is
 * served by whichever key is ready first. Keys become ready when a list is put at them (every
 * list passes {@link Keyspace#put}); they are served after the command that made them ready, in
 * the order they became ready, one element per waiter in arrival order while the list lasts, as
 * Redis does. A {@code BLMOVE} served may make its destination ready in turn.
 *
 * <p>A timeout is a loop timer ({@code 0}: none, wait forever) answering the null array. A client
 * that disconnects is unblocked ({@link #cancel}): its queues forget it and its timer is cancelled.
 * What a client can make the server hold: one waiter per connection (a connection runs one
 * command at a time), in one queue per key it names.
 */
final class Blocking {
    /** One blocked command. */
    static final class Waiter {
        final Session session;
        final Keyspace db;
        final byte[][] keys;
        final boolean fromLeft;
        final byte[] destination; // BLMOVE's, else null
        final boolean toLeft;
        TimerHandle timer;
        /** Where the reply goes, and what runs on the data loop once it is there; set by the connection. */
        OutputBuffer out;
        Runnable resume;
        private boolean done;

        Waiter(Session session, Keyspace db, byte[][] keys, boolean fromLeft, byte[] destination, boolean toLeft) {
            this.session = session;
            this.db = db;
            this.keys = keys;
            this.fromLeft = fromLeft;
            this.destination = destination;
            this.toLeft = toLeft;
        }

        /** Whether the connection said where to answer (it does right after the command). */
        boolean attached() {
            return resume != null;
        }

        /** The connection's side: where the reply is to be written and what continues the batch. */
        void attach(OutputBuffer out, Runnable resume) {
            this.out = out;
            this.resume = resume;
        }
    }

    private final Loop loop;
    private final Map<Keyspace, Map<Blob, ArrayDeque<Waiter>>> waiting = new IdentityHashMap<>();
    /** Keys with waiters at which a list appeared, in that order, per database. */
    private final LinkedHashSet<ReadyKey> ready = new LinkedHashSet<>();
    private int blocked;

    private record ReadyKey(Keyspace db, Blob key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ReadyKey k && k.db == db && k.key.equals(key);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(db) * 31 + key.hashCode();
        }
    }

    Blocking(Loop loop) {
        this.loop = loop;
    }

    /** Clients blocked now. */
    int blockedClients() {
        return blocked;
    }

    /**
     * The timeout argument in milliseconds (0: forever), as Redis reads it: a decimal number of
     * seconds, cut to whole milliseconds; -1 with the error replied if it is not one.
     */
    static long timeoutMillis(byte[] arg, Reply r) {
        BigDecimal seconds = LongDouble.parse(arg);
        if (seconds == null) {
            r.error("ERR timeout is not a float or out of range");
            return -1;
        }
        if (seconds.signum() < 0) {
            r.error("ERR timeout is negative");
            return -1;
        }
        BigDecimal ms = seconds.movePointRight(3);
        if (ms.compareTo(BigDecimal.valueOf(Keyspace.MAX_TIMER_MS)) > 0) {
            r.error("ERR timeout is out of range");
            return -1;
        }
        return ms.longValue();
    }

    /** Blocks {@code session} on {@code keys} of {@code db}; the command writes no reply now. */
    void block(Session session, Keyspace db, byte[][] keys, boolean fromLeft, byte[] destination, boolean toLeft,
               long timeoutMs) {
        Waiter w = new Waiter(session, db, keys, fromLeft, destination, toLeft);
        Map<Blob, ArrayDeque<Waiter>> byKey = waiting.computeIfAbsent(db, d -> new HashMap<>());
        for (byte[] k : keys) {
            ArrayDeque<Waiter> q = byKey.computeIfAbsent(new Blob(k), b -> new ArrayDeque<>());
            if (!q.contains(w)) { // BLPOP a a 0 waits once
                q.add(w);
            }
        }
        if (timeoutMs > 0) {
            w.timer = loop.callLater(java.time.Duration.ofMillis(timeoutMs), () -> {
                w.timer = null;
                forget(w);
                finish(w, null, null);
            });
        }
        session.blocked = w;
        blocked++;
    }

    /** Told by a keyspace that a list was put at {@code key}. */
    void listCreated(Keyspace db, byte[] key) {
        Map<Blob, ArrayDeque<Waiter>> byKey = waiting.get(db);
        if (byKey != null) {
            Blob b = new Blob(key);
            if (byKey.containsKey(b)) {
                ready.add(new ReadyKey(db, b));
            }
        }
    }

    /** Whether some key is ready: checked after every command, allocation-free. */
    boolean hasReady() {
        return !ready.isEmpty();
    }

    /** Serves the waiters of the keys that became ready, until none is (a served BLMOVE may add one). */
    void serveReady() {
        while (!ready.isEmpty()) {
            ReadyKey rk = ready.iterator().next();
            ready.remove(rk);
            Map<Blob, ArrayDeque<Waiter>> byKey = waiting.get(rk.db());
            ArrayDeque<Waiter> q = byKey == null ? null : byKey.get(rk.key());
            while (q != null && !q.isEmpty()) {
                Keyspace.Entry e = rk.db().find(rk.key().bytes);
                if (e == null || !(e.value instanceof ListValue)) {
                    break; // emptied, or not a list any more: the rest wait on
                }
                Waiter w = q.peek();
                if (w.destination != null) {
                    Keyspace.Entry dst = rk.db().find(w.destination);
                    if (dst != null && !(dst.value instanceof ListValue)) {
                        // Redis answers the waiter WRONGTYPE and unblocks it
                        forget(w);
                        finish(w, null, StringCommands.WRONGTYPE);
                        continue;
                    }
                }
                forget(w);
                finish(w, rk.key().bytes, null);
            }
        }
    }

    /** Unblocks {@code session}'s waiter, if any, without a reply: the client went away. */
    void cancel(Session session) {
        Waiter w = session.blocked;
        if (w == null || w.done) {
            return;
        }
        forget(w);
        if (w.timer != null) {
            w.timer.cancel();
            w.timer = null;
        }
        w.done = true;
        session.blocked = null;
        blocked--;
    }

    /** Removes {@code w} from every queue it is in. */
    private void forget(Waiter w) {
        Map<Blob, ArrayDeque<Waiter>> byKey = waiting.get(w.db);
        if (byKey == null) {
            return;
        }
        for (byte[] k : w.keys) {
            Blob b = new Blob(k);
            ArrayDeque<Waiter> q = byKey.get(b);
            if (q != null) {
                q.remove(w);
                if (q.isEmpty()) {
                    byKey.remove(b);
                }
            }
        }
        if (byKey.isEmpty()) {
            waiting.remove(w.db);
        }
    }

    /**
     * Answers {@code w}: the element popped from {@code key} (null: timed out; {@code error}: that
     * error), then lets its connection go on with its batch, after the command running now.
     */
    private void finish(Waiter w, byte[] key, String error) {
        if (w.done) {
            return;
        }
        w.done = true;
        blocked--;
        if (w.timer != null) {
            w.timer.cancel();
            w.timer = null;
        }
        Reply r = w.session.reply.to(w.out);
        if (error != null) {
            r.error(error);
        } else if (key == null) {
            r.nullArray();
        } else {
            Keyspace.Entry e = w.db.find(key);
            if (w.destination != null) {
                r.bulk(ListCommands.move(e, w.destination, w.fromLeft, w.toLeft, w.db, r));
            } else {
                ListValue l = (ListValue) e.value;
                byte[] v = w.fromLeft ? l.removeFirst() : l.removeLast();
                w.db.modified(e);
                r.arrayHeader(2);
                r.bulk(key);
                r.bulk(v);
            }
        }
        w.session.blocked = null;
        loop.execute(w.resume);
    }

    /** The waiters of {@code db} and key, in order (for tests). */
    List<Session> waitersOf(Keyspace db, byte[] key) {
        Map<Blob, ArrayDeque<Waiter>> byKey = waiting.get(db);
        ArrayDeque<Waiter> q = byKey == null ? null : byKey.get(new Blob(key));
        List<Session> l = new ArrayList<>();
        if (q != null) {
            q.forEach(w -> l.add(w.session));
        }
        return l;
    }
}
