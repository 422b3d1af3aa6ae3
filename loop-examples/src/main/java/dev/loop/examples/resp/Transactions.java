package dev.loop.examples.resp;

import java.util.ArrayList;
import java.util.List;

/**
 * MULTI, EXEC, DISCARD, WATCH, UNWATCH, as redis-server runs them. Not thread-safe: the data
 * loop's.
 *
 * <p>Between MULTI and EXEC a client's commands are checked (known, arity, allowed) and queued,
 * answered {@code +QUEUED}; one refused marks the transaction, and EXEC then answers EXECABORT
 * and runs nothing. EXEC runs the queue in one go on the data loop, so no other client's command
 * comes between two of them. WATCH'ed keys are checked at EXEC: if any was changed since, by any
 * client on any loop (the {@link Keyspace} reports each change to its {@link Watches}), EXEC
 * answers the null array and runs nothing.
 *
 * <p>What a client can queue is bounded by what it sends: each queued command is the arguments
 * the parser already holds, kept until EXEC or DISCARD.
 */
final class Transactions {
    private static final byte[] QUEUED = Reply.ascii("+QUEUED\r\n");

    /** Commands run at once even inside MULTI: the ones that end or control the transaction. */
    static boolean runsInsideMulti(int id) {
        return id == CommandTable.EXEC || id == CommandTable.DISCARD || id == CommandTable.MULTI
                || id == CommandTable.WATCH || id == CommandTable.QUIT || id == CommandTable.RESET;
    }

    void multi(Session s, Reply r) {
        if (s.queued != null) {
            r.error("ERR MULTI calls can not be nested");
            return;
        }
        s.queued = new ArrayList<>();
        s.queueError = false;
        r.ok();
    }

    void queue(Session s, byte[][] argv, Reply r) {
        s.queued.add(argv.clone()); // the parser reuses argv's array for a later batch; the arguments themselves stay
        r.raw(QUEUED);
    }

    /** A command was refused while queueing (unknown, wrong arity, not allowed). */
    static void refused(Session s) {
        if (s.queued != null) {
            s.queueError = true;
        }
    }

    /**
     * EXEC: runs the queue through {@code commands}, each reply an element of one array.
     *
     * @return true if the connection closes afterwards
     */
    boolean exec(Session s, Commands commands, Reply r) {
        if (s.queued == null) {
            r.error("ERR EXEC without MULTI");
            return false;
        }
        List<byte[][]> queue = s.queued;
        boolean aborted = s.queueError;
        boolean dirty = s.watchDirty;
        s.queued = null;
        s.queueError = false;
        Watches.unwatchAll(s); // before running: the transaction's own writes do not fail it
        if (aborted) {
            r.error("EXECABORT Transaction discarded because of previous errors.");
            return false;
        }
        if (dirty) {
            r.nullArray();
            return false;
        }
        r.arrayHeader(queue.size());
        boolean close = false;
        // a blocking pop inside a transaction answers at once as if it had timed out, as in Redis
        s.denyBlocking = true;
        try {
            for (byte[][] argv : queue) {
                close |= commands.dispatch(CommandTable.lookup(argv[0]), argv, s, s.reply);
            }
        } finally {
            s.denyBlocking = false;
        }
        return close;
    }

    void discard(Session s, Reply r) {
        if (s.queued == null) {
            r.error("ERR DISCARD without MULTI");
            return;
        }
        s.queued = null;
        s.queueError = false;
        Watches.unwatchAll(s);
        r.ok();
    }

    void watch(Session s, byte[][] argv, Keyspace keys, Reply r) {
        if (s.queued != null) {
            r.error("ERR WATCH inside MULTI is not allowed");
            return;
        }
        for (int i = 1; i < argv.length; i++) {
            keys.watches.watch(s, argv[i]);
        }
        r.ok();
    }

    void unwatch(Session s, Reply r) {
        Watches.unwatchAll(s);
        r.ok();
    }
}
