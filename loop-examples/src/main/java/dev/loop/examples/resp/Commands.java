package dev.loop.examples.resp;

import dev.loop.examples.io.OutputBuffer;
import dev.loop.examples.resp.CommandTable.Spec;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs commands against the keyspace and encodes their replies. Not thread-safe: lives on the data
 * loop with the keyspace. Errors use Redis' wording, so clients and people read them the same way.
 */
final class Commands {
    private final Keyspace[] databases;
    private final StringCommands strings;
    private final StringEditCommands stringEdits;
    private long internalErrors;
    private final KeyCommands keyCommands = new KeyCommands();
    private final HashCommands hashes = new HashCommands();
    private final Blocking blocking;
    private final ListCommands lists;
    private final SetCommands sets = new SetCommands();
    /** What {@code CONFIG GET} answers: redis-benchmark asks for {@code save} and {@code appendonly}. */
    private final Map<String, String> config;
    private final ServerState server;
    private final ConnectionCommands connection;
    private final Transactions transactions = new Transactions();
    private final PubSub pubsub = new PubSub();

    /** Commands over {@code databases} (index 0 is the default), answering CONFIG GET with {@code config}. */
    Commands(Keyspace[] databases, Map<String, String> config) {
        this(databases, config, ServerState.standalone());
    }

    /** Commands of a server described by {@code server} (its password, its clients, its counters). */
    Commands(Keyspace[] databases, Map<String, String> config, ServerState server) {
        if (databases.length == 0) {
            throw new IllegalArgumentException("a server needs at least one database");
        }
        this.databases = databases.clone();
        this.strings = new StringCommands();
        this.config = new LinkedHashMap<>(config);
        this.blocking = new Blocking(databases[0].loop());
        for (Keyspace db : this.databases) {
            db.onListCreated(blocking::listCreated);
        }
        this.lists = new ListCommands(blocking);
        this.stringEdits = new StringEditCommands(Long.parseLong(config.getOrDefault("proto-max-bulk-len",
                Integer.toString(512 * 1024 * 1024))));
        this.server = server;
        this.connection = new ConnectionCommands(server, this);
    }

    ServerState server() {
        return server;
    }

    /** Forgets what {@code s} left behind on the data loop: its subscriptions and watches. */
    void disconnected(Session s) {
        pubsub.removeAll(s);
        Watches.unwatchAll(s);
        s.queued = null;
    }

    /** The default database (index 0). */
    Keyspace keyspace() {
        return databases[0];
    }

    Keyspace database(int index) {
        return databases[index];
    }

    int databases() {
        return databases.length;
    }

    /**
     * Runs one command of {@code session}'s and writes its reply to {@code out}.
     *
     * @return true if the connection is to be closed once the reply is written ({@code QUIT})
     */
    boolean execute(byte[][] argv, Session session, OutputBuffer out) {
        Reply r = session.reply.to(out);
        server.commandsProcessed().increment();
        Keyspace keys = databases[session.db];
        keys.startCommand();
        Spec spec = CommandTable.lookup(argv[0]);
        if (spec == null) {
            unknownCommand(argv, r);
            Transactions.refused(session);
            return false;
        }
        if (!spec.arityAccepts(argv.length)) {
            wrongArity(r, spec.name());
            Transactions.refused(session);
            return false;
        }
        int id = spec.id();
        if (!session.authenticated && server.authRequired() && id != CommandTable.AUTH && id != CommandTable.HELLO
                && id != CommandTable.QUIT && id != CommandTable.RESET) {
            r.error(ConnectionCommands.NOAUTH);
            Transactions.refused(session);
            return false;
        }
        if (session.inSubscribedMode() && id != CommandTable.SUBSCRIBE && id != CommandTable.UNSUBSCRIBE
                && id != CommandTable.PSUBSCRIBE && id != CommandTable.PUNSUBSCRIBE && id != CommandTable.PING
                && id != CommandTable.QUIT && id != CommandTable.RESET) {
            r.error("ERR Can't execute '" + spec.name() + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT "
                    + "/ RESET are allowed in this context");
            return false;
        }
        session.lastCommand = spec.name();
        session.lastCommandNanos = System.nanoTime();
        if (session.queued != null && !Transactions.runsInsideMulti(id)) {
            transactions.queue(session, argv, r);
            return false;
        }
        return dispatch(spec, argv, session, r);
    }

    /** Runs a command that passed the checks (directly, or from EXEC's queue). */
    boolean dispatch(Spec spec, byte[][] argv, Session session, Reply r) {
        Keyspace keys = databases[session.db];
        switch (spec.id()) {
            case CommandTable.PING -> {
                if (argv.length > 2) {
                    wrongArity(r, "ping");
                } else if (session.inSubscribedMode()) {
                    r.arrayHeader(2); // a RESP2 subscriber reads only arrays
                    r.bulk("pong");
                    r.bulk(argv.length == 2 ? argv[1] : new byte[0]);
                } else if (argv.length == 2) {
                    r.bulk(argv[1]);
                } else {
                    r.raw(Reply.PONG);
                }
            }
            case CommandTable.ECHO -> r.bulk(argv[1]);
            case CommandTable.DBSIZE -> r.integer(keys.size());
            case CommandTable.FLUSHALL, CommandTable.FLUSHDB -> {
                if (argv.length > 2 || (argv.length == 2 && !CommandTable.is(argv[1], "async")
                        && !CommandTable.is(argv[1], "sync"))) {
                    r.error("ERR syntax error");
                } else {
                    if (spec.id() == CommandTable.FLUSHALL) {
                        for (Keyspace db : databases) {
                            db.clear();
                        }
                    } else {
                        keys.clear();
                    }
                    r.ok();
                }
            }
            case CommandTable.SELECT -> {
                if (!Numbers.isLong(argv[1])) {
                    r.error(StringCommands.NOT_AN_INTEGER);
                } else if (Numbers.parseLong(argv[1]) < 0 || Numbers.parseLong(argv[1]) >= databases.length) {
                    r.error("ERR DB index is out of range");
                } else {
                    session.db = (int) Numbers.parseLong(argv[1]);
                    r.ok();
                }
            }
            case CommandTable.QUIT -> {
                r.ok();
                return true;
            }
            case CommandTable.COMMAND -> command(argv, r);
            case CommandTable.CONFIG -> config(argv, r);
            case CommandTable.HELLO -> connection.hello(argv, session, r);
            case CommandTable.AUTH -> connection.auth(argv, session, r);
            case CommandTable.CLIENT -> connection.client(argv, session, r);
            case CommandTable.INFO -> connection.info(argv, pubsub, r);
            case CommandTable.RESET -> connection.reset(session, pubsub, r);
            case CommandTable.MULTI -> transactions.multi(session, r);
            case CommandTable.EXEC -> {
                return transactions.exec(session, this, r);
            }
            case CommandTable.DISCARD -> transactions.discard(session, r);
            case CommandTable.WATCH -> transactions.watch(session, argv, keys, r);
            case CommandTable.UNWATCH -> transactions.unwatch(session, r);
            case CommandTable.SUBSCRIBE -> pubsub.subscribe(session, argv, r, false);
            case CommandTable.PSUBSCRIBE -> pubsub.subscribe(session, argv, r, true);
            case CommandTable.UNSUBSCRIBE -> pubsub.unsubscribe(session, argv, r, false);
            case CommandTable.PUNSUBSCRIBE -> pubsub.unsubscribe(session, argv, r, true);
            case CommandTable.PUBLISH -> r.integer(pubsub.publish(argv[1], argv[2], session));
            case CommandTable.PUBSUB -> pubsub.pubsub(argv, r);
            default -> dataCommand(spec.id(), argv, session, keys, r);
        }
        if (blocking.hasReady()) {
            blocking.serveReady(); // the clients blocked on lists this command created
        }
        return false;
    }

    /** The clients blocked in BLPOP, BRPOP, BLMOVE. */
    Blocking blocking() {
        return blocking;
    }

    /**
     * The commands on typed values, by their id's hundred (see {@link DataCommandTable}). A bug
     * that throws in one is answered as an error in place of whatever of its reply was written,
     * and counted, so the client gets an answer and the connection its next command.
     */
    private void dataCommand(int id, byte[][] argv, Session session, Keyspace keys, Reply r) {
        int mark = r.buffer().size();
        try {
            run(id, argv, session, keys, r);
        } catch (RuntimeException e) {
            r.buffer().truncate(mark);
            internalErrors++;
            r.error("ERR internal error in '" + new String(argv[0], StandardCharsets.UTF_8) + "': "
                    + e.getClass().getSimpleName());
        }
    }

    /** Commands that failed with an exception (a bug): answered with an error, counted, not logged. */
    long internalErrors() {
        return internalErrors;
    }

    private void run(int id, byte[][] argv, Session session, Keyspace keys, Reply r) {
        switch (id / 100) {
            case 0 -> strings.execute(id, argv, keys, r);
            case 1 -> stringEdits.execute(id, argv, keys, r);
            case 2 -> keyCommands.execute(id, argv, keys, r);
            case 3 -> hashes.execute(id, argv, keys, r);
            case 4 -> lists.execute(id, argv, session, keys, r);
            case 5 -> sets.execute(id, argv, keys, r);
            default -> throw new IllegalArgumentException("no command has the id " + id);
        }
    }

    static void wrongArity(Reply r, String name) {
        r.error("ERR wrong number of arguments for '" + name + "' command");
    }

    /** Redis' message: the name and up to 128 characters of the arguments, each quoted. */
    private static void unknownCommand(byte[][] argv, Reply r) {
        StringBuilder args = new StringBuilder();
        for (int i = 1; i < argv.length && args.length() < 128; i++) {
            String a = new String(argv[i], StandardCharsets.UTF_8);
            args.append('\'').append(a, 0, Math.min(a.length(), 128 - args.length())).append("' ");
        }
        String name = new String(argv[0], StandardCharsets.UTF_8);
        r.error("ERR unknown command '" + name.substring(0, Math.min(128, name.length()))
                + "', with args beginning with: " + args);
    }

    /** {@code COMMAND}, {@code COMMAND COUNT|LIST|INFO|DOCS}: enough for redis-cli and redis-benchmark. */
    private static void command(byte[][] argv, Reply r) {
        if (argv.length == 1) {
            r.arrayHeader(CommandTable.ALL.size());
            CommandTable.ALL.forEach(s -> describe(s, r));
        } else if (CommandTable.is(argv[1], "count")) {
            r.integer(CommandTable.ALL.size());
        } else if (CommandTable.is(argv[1], "list")) {
            r.arrayHeader(CommandTable.ALL.size());
            CommandTable.ALL.forEach(s -> r.bulk(s.name()));
        } else if (CommandTable.is(argv[1], "info")) {
            if (argv.length == 2) {
                r.arrayHeader(CommandTable.ALL.size());
                CommandTable.ALL.forEach(s -> describe(s, r));
                return;
            }
            r.arrayHeader(argv.length - 2);
            for (int i = 2; i < argv.length; i++) {
                Spec s = CommandTable.lookup(argv[i]);
                if (s == null) {
                    r.nullArray();
                } else {
                    describe(s, r);
                }
            }
        } else if (CommandTable.is(argv[1], "docs")) {
            java.util.List<Spec> asked = new java.util.ArrayList<>();
            for (int i = 2; i < argv.length; i++) {
                Spec s = CommandTable.lookup(argv[i]);
                if (s != null) {
                    asked.add(s); // unknown names are left out, as redis-server does
                }
            }
            java.util.List<Spec> docs = argv.length == 2 ? CommandTable.ALL : asked;
            r.mapHeader(docs.size());
            docs.forEach(s -> CommandDocs.describe(s, r));
        } else {
            r.error("ERR unknown subcommand '" + new String(argv[1], StandardCharsets.UTF_8)
                    + "'. Try COMMAND HELP.");
        }
    }

    /**
     * A command as Redis 7 describes it: ten fields, the last four (ACL categories, tips, key
     * specs, subcommands) empty here. Flags and the empty ones are sets in RESP3.
     */
    private static void describe(Spec s, Reply r) {
        r.arrayHeader(10);
        r.bulk(s.name());
        r.integer(s.arity());
        r.setHeader(s.flags().size());
        s.flags().forEach(f -> r.status(f));
        r.integer(s.firstKey());
        r.integer(s.lastKey());
        r.integer(s.step());
        for (int i = 0; i < 4; i++) {
            r.setHeader(0);
        }
    }

    /** {@code CONFIG GET pattern...}: the parameters matching any pattern, as name/value pairs. */
    private void config(byte[][] argv, Reply r) {
        if (!CommandTable.is(argv[1], "get")) {
            r.error("ERR unknown subcommand '" + new String(argv[1], StandardCharsets.UTF_8)
                    + "'. Try CONFIG HELP.");
            return;
        }
        if (argv.length < 3) {
            wrongArity(r, "config|get");
            return;
        }
        Map<String, String> found = new LinkedHashMap<>();
        for (int i = 2; i < argv.length; i++) {
            byte[] pattern = argv[i];
            config.forEach((k, v) -> {
                if (GlobPattern.matches(pattern, k.getBytes(StandardCharsets.UTF_8), true)) {
                    found.put(k, v);
                }
            });
        }
        r.arrayHeader(found.size() * 2);
        found.forEach((k, v) -> {
            r.bulk(k);
            r.bulk(v);
        });
    }
}
