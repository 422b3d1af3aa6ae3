package dev.loop.examples.resp;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the server keeps of one client between its commands: the protocol it speaks, the database
 * it selected, the writer of its replies, whether it authenticated, its name, its transaction in
 * progress, the keys it watches and the channels it listens to. Read and written only on the data
 * loop, while one of the client's batches runs there (a batch at a time per client, so never at
 * once), except the final fields, which are set before the client is published.
 */
final class Session {
    final long id;
    final Reply reply = new Reply();
    /** Where pushed messages go (null: a session that cannot receive them, as in unit tests). */
    final Subscriber subscriber;
    /** {@code ip:port} of the client and of the server's end, as CLIENT LIST shows them. */
    final String addr;
    final String laddr;
    /** When the client connected, in the JVM's monotonic nanoseconds. */
    final long createdNanos = System.nanoTime();

    /** The index of the selected database. */
    int db;
    boolean authenticated;
    /** CLIENT SETNAME's, SETINFO's: printable ASCII without spaces, or empty. */
    String name = "";
    String libName = "";
    String libVer = "";
    boolean noEvict;
    boolean noTouch;
    /** The name of the last command run, and when (monotonic nanoseconds), for CLIENT LIST. */
    String lastCommand = "NULL";
    long lastCommandNanos = createdNanos;

    /** Commands queued since MULTI, or null outside a transaction. */
    List<byte[][]> queued;
    /** A command was refused while queueing: EXEC will abort. */
    boolean queueError;
    /** The keys WATCH'ed, in any database, until EXEC, DISCARD, UNWATCH or RESET. */
    final List<Watches.Watched> watched = new ArrayList<>(0);
    /** A watched key changed: the next EXEC fails. */
    boolean watchDirty;

    /** Channels and patterns subscribed to, as the registry's keys. */
    final Set<PubSub.Name> channels = new HashSet<>(0);
    final Set<PubSub.Name> patterns = new HashSet<>(0);

    /** The command this client is blocked in (BLPOP...), or null; see {@link Blocking}. */
    Blocking.Waiter blocked;
    /**
     * Set while commands must not block (those of a transaction as EXEC runs them): a blocking
     * pop with nothing to pop answers at once as if it had timed out, as Redis does.
     */
    boolean denyBlocking;

    Session(long id, Subscriber subscriber, String addr, String laddr) {
        this.id = id;
        this.subscriber = subscriber;
        this.addr = addr;
        this.laddr = laddr;
    }

    /** A session without a connection: for tests of the commands alone. */
    Session(long id) {
        this(id, null, "?:0", "?:0");
        this.authenticated = true;
    }

    int subscriptions() {
        return channels.size() + patterns.size();
    }

    /** RESP2 clients with a subscription may only (un)subscribe, ping, quit or reset. */
    boolean inSubscribedMode() {
        return !reply.resp3() && subscriptions() > 0;
    }

    /**
     * Where a client's pushed messages (pub/sub) go: the connection on its home loop. Called on
     * the data loop; the implementation hands the bytes to the home loop in the order of calls.
     */
    interface Subscriber {
        /** Delivers {@code message}, an encoded push; false if the subscriber is gone or was dropped. */
        boolean push(byte[] message);
    }

    @Override
    public String toString() {
        return "Session[id=" + id + ", db=" + db + ", resp" + reply.protocol() + "]";
    }
}
