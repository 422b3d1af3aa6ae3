package dev.loop.examples.resp;

/**
 * What the server keeps of one client between its commands: the protocol it speaks, the database
 * it selected, and the writer of its replies. Read and written only on the data loop, while one
 * of the client's batches runs there (a batch at a time per client, so never at once).
 */
final class Session {
    final long id;
    final Reply reply = new Reply();
    /** The index of the selected database. */
    int db;

    /** The command this client is blocked in (BLPOP...), or null; see {@link Blocking}. */
    Blocking.Waiter blocked;
    /**
     * Set while commands must not block (those of a transaction as EXEC runs them): a blocking
     * pop with nothing to pop answers at once as if it had timed out, as Redis does.
     */
    boolean denyBlocking;

    Session(long id) {
        this.id = id;
    }

    @Override
    public String toString() {
        return "Session[id=" + id + ", db=" + db + ", resp" + reply.protocol() + "]";
    }
}
