package dev.loop.examples.resp;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.Locale;

/**
 * The commands about the connection and the server rather than the data: HELLO, AUTH, CLIENT,
 * INFO, RESET. Not thread-safe: the data loop's. Replies and errors are redis-server 7's, byte for
 * byte where a client could compare them.
 */
final class ConnectionCommands {
    static final String NOAUTH = "NOAUTH Authentication required.";
    static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    private static final String HELLO_NOAUTH = "NOAUTH HELLO must be called with the client already authenticated, "
            + "otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
            + "the RESP protocol version at the same time";
    private static final byte[] RESET = Reply.ascii("+RESET\r\n");

    private final ServerState server;
    private final Commands commands;

    ConnectionCommands(ServerState server, Commands commands) {
        this.server = server;
        this.commands = commands;
    }

    /** {@code HELLO [protover [AUTH user pass] [SETNAME name]]}: switches protocol, answers who we are. */
    void hello(byte[][] argv, Session s, Reply r) {
        int version = 0;
        int next = 1;
        if (argv.length >= 2) {
            next++;
            if (!Numbers.isLong(argv[1])) {
                r.error("ERR Protocol version is not an integer or out of range");
                return;
            }
            long v = Numbers.parseLong(argv[1]);
            if (v < 2 || v > 3) {
                r.error("NOPROTO unsupported protocol version");
                return;
            }
            version = (int) v;
        }
        byte[] user = null;
        byte[] pass = null;
        byte[] name = null;
        for (int j = next; j < argv.length; j++) {
            int more = argv.length - 1 - j;
            if (CommandTable.is(argv[j], "auth") && more >= 2) {
                user = argv[j + 1];
                pass = argv[j + 2];
                j += 2;
            } else if (CommandTable.is(argv[j], "setname") && more >= 1) {
                name = argv[j + 1];
                j++;
            } else {
                r.error("ERR Syntax error in HELLO option '" + text(argv[j]) + "'");
                return;
            }
        }
        if (user != null && !authenticate(s, user, pass, r)) {
            return;
        }
        if (!s.authenticated) {
            r.error(HELLO_NOAUTH);
            return;
        }
        if (name != null && !setName(s, name, r)) {
            return;
        }
        if (version != 0) {
            s.reply.protocol(version);
        }
        r.mapHeader(7);
        r.bulk("server");
        r.bulk("redis");
        r.bulk("version");
        r.bulk(ServerState.REDIS_VERSION);
        r.bulk("proto");
        r.integer(s.reply.protocol());
        r.bulk("id");
        r.integer(s.id);
        r.bulk("mode");
        r.bulk("standalone");
        r.bulk("role");
        r.bulk("master");
        r.bulk("modules");
        r.arrayHeader(0);
    }

    /** {@code AUTH [user] pass}: the default user only, its password {@code --requirepass}'s. */
    void auth(byte[][] argv, Session s, Reply r) {
        if (argv.length > 3) {
            r.error(StringCommands.SYNTAX);
            return;
        }
        if (argv.length == 2 && !server.authRequired()) {
            r.error("ERR AUTH <password> called without any password configured for the default user. "
                    + "Are you sure your configuration is correct?");
            return;
        }
        byte[] user = argv.length == 3 ? argv[1] : Reply.ascii("default");
        if (authenticate(s, user, argv[argv.length - 1], r)) {
            r.ok();
        }
    }

    /** Checks a user and password, as the default user without ACLs; on failure replies WRONGPASS. */
    private boolean authenticate(Session s, byte[] user, byte[] pass, Reply r) {
        boolean ok = new String(user, StandardCharsets.UTF_8).equals("default")
                && (!server.authRequired() || java.security.MessageDigest.isEqual(
                        server.requirePass().getBytes(StandardCharsets.UTF_8), pass));
        if (!ok) {
            r.error(WRONGPASS);
            return false;
        }
        s.authenticated = true;
        return true;
    }

    /** {@code CLIENT ID|SETNAME|GETNAME|SETINFO|INFO|LIST|NO-EVICT|NO-TOUCH}. */
    void client(byte[][] argv, Session s, Reply r) {
        String sub = text(argv[1]).toLowerCase(Locale.ROOT);
        int arity = switch (sub) {
            case "id", "getname", "info" -> 2;
            case "setname", "no-evict", "no-touch" -> 3;
            case "setinfo" -> 4;
            case "list" -> -2;
            default -> 0;
        };
        if (arity == 0) {
            r.error("ERR unknown subcommand '" + text(argv[1]) + "'. Try CLIENT HELP.");
            return;
        }
        s.lastCommand = "client|" + sub;
        if (arity > 0 ? argv.length != arity : argv.length < -arity) {
            Commands.wrongArity(r, "client|" + sub);
            return;
        }
        switch (sub) {
            case "id" -> r.integer(s.id);
            case "getname" -> r.bulk(s.name.isEmpty() ? null : s.name.getBytes(StandardCharsets.US_ASCII));
            case "setname" -> {
                if (setName(s, argv[2], r)) {
                    r.ok();
                }
            }
            case "setinfo" -> setInfo(argv, s, r);
            case "info" -> r.verbatim(describe(s));
            case "list" -> {
                if (argv.length > 2) {
                    r.error(StringCommands.SYNTAX); // TYPE and ID filters are not supported
                    return;
                }
                StringBuilder b = new StringBuilder();
                server.clients().values().stream().sorted(Comparator.comparingLong(x -> x.id))
                        .forEach(x -> b.append(describe(x)));
                r.verbatim(b.toString());
            }
            default -> {
                boolean on = CommandTable.is(argv[2], "on");
                if (!on && !CommandTable.is(argv[2], "off")) {
                    r.error(StringCommands.SYNTAX);
                    return;
                }
                if (sub.equals("no-evict")) {
                    s.noEvict = on;
                } else {
                    s.noTouch = on;
                }
                r.ok();
            }
        }
    }

    private static boolean setName(Session s, byte[] name, Reply r) {
        if (!printable(name)) {
            r.error("ERR Client names cannot contain spaces, newlines or special characters.");
            return false;
        }
        s.name = new String(name, StandardCharsets.US_ASCII);
        return true;
    }

    private static void setInfo(byte[][] argv, Session s, Reply r) {
        boolean libName = CommandTable.is(argv[2], "lib-name");
        if (!libName && !CommandTable.is(argv[2], "lib-ver")) {
            r.error("ERR Unrecognized option '" + text(argv[2]) + "'");
            return;
        }
        if (!printable(argv[3])) {
            r.error("ERR " + (libName ? "lib-name" : "lib-ver") + " cannot contain spaces, newlines or special characters.");
            return;
        }
        String v = new String(argv[3], StandardCharsets.US_ASCII);
        if (libName) {
            s.libName = v;
        } else {
            s.libVer = v;
        }
        r.ok();
    }

    /** Visible ASCII only, as Redis requires of names: no spaces, no control characters. */
    private static boolean printable(byte[] b) {
        for (byte c : b) {
            if (c < '!' || c > '~') {
                return false;
            }
        }
        return true;
    }

    /** One client as CLIENT LIST shows it, ended by a newline. */
    private String describe(Session x) {
        long now = System.nanoTime();
        StringBuilder flags = new StringBuilder();
        if (x.queued != null) {
            flags.append('x');
        }
        if (x.subscriptions() > 0) {
            flags.append('P');
        }
        if (x.noEvict) {
            flags.append('e');
        }
        if (x.noTouch) {
            flags.append('T');
        }
        return "id=" + x.id + " addr=" + x.addr + " laddr=" + x.laddr + " name=" + x.name
                + " age=" + (now - x.createdNanos) / 1_000_000_000L + " idle=" + (now - x.lastCommandNanos) / 1_000_000_000L
                + " flags=" + (flags.isEmpty() ? "N" : flags) + " db=" + x.db + " sub=" + x.channels.size()
                + " psub=" + x.patterns.size() + " ssub=0 multi=" + (x.queued == null ? -1 : x.queued.size())
                + " watch=" + x.watched.size() + " cmd=" + x.lastCommand + " user=default redir=-1 resp="
                + x.reply.protocol() + " lib-name=" + x.libName + " lib-ver=" + x.libVer + "\n";
    }

    /** {@code RESET}: the connection as new, as redis-server resets it. */
    void reset(Session s, PubSub pubsub, Reply r) {
        s.queued = null;
        s.queueError = false;
        Watches.unwatchAll(s);
        pubsub.removeAll(s);
        s.db = 0;
        s.reply.protocol(2);
        s.name = "";
        s.noEvict = false;
        s.noTouch = false;
        s.authenticated = !server.authRequired();
        r.raw(RESET);
    }

    /** {@code INFO [section ...]}: server, clients, memory, stats, replication, keyspace. */
    void info(byte[][] argv, PubSub pubsub, Reply r) {
        boolean all = argv.length == 1;
        java.util.Set<String> wanted = new java.util.HashSet<>();
        for (int i = 1; i < argv.length; i++) {
            String w = text(argv[i]).toLowerCase(Locale.ROOT);
            all |= w.equals("all") || w.equals("everything") || w.equals("default");
            wanted.add(w);
        }
        StringBuilder b = new StringBuilder();
        if (all || wanted.contains("server")) {
            long up = (System.nanoTime() - server.startNanos()) / 1_000_000_000L;
            section(b, "Server", "redis_version:" + ServerState.REDIS_VERSION, "redis_mode:standalone",
                    "os:" + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"),
                    "arch_bits:64", "multiplexing_api:" + server.backend(), "process_id:" + ProcessHandle.current().pid(),
                    "tcp_port:" + server.port().get(), "uptime_in_seconds:" + up, "uptime_in_days:" + up / 86400,
                    "io_threads_active:" + (server.loops() > 1 ? 1 : 0), "loops:" + server.loops());
        }
        if (all || wanted.contains("clients")) {
            long pubsubClients = server.clients().values().stream().filter(x -> x.subscriptions() > 0).count();
            section(b, "Clients", "connected_clients:" + server.clients().size(), "blocked_clients:0",
                    "pubsub_clients:" + pubsubClients, "maxclients:10000");
        }
        if (all || wanted.contains("memory")) {
            Runtime rt = Runtime.getRuntime();
            long used = rt.totalMemory() - rt.freeMemory();
            section(b, "Memory", "used_memory:" + used, "used_memory_human:" + human(used),
                    "maxmemory:0", "maxmemory_human:0B", "maxmemory_policy:noeviction");
        }
        if (all || wanted.contains("stats")) {
            section(b, "Stats", "total_connections_received:" + server.connectionsReceived().sum(),
                    "total_commands_processed:" + server.commandsProcessed().sum(),
                    "pubsub_channels:" + pubsub.channelCount(), "pubsub_patterns:" + pubsub.patternCount(),
                    "client_output_buffer_limit_disconnections:" + server.outputLimitDisconnections().sum());
        }
        if (all || wanted.contains("replication")) {
            section(b, "Replication", "role:master", "connected_slaves:0");
        }
        if (all || wanted.contains("keyspace")) {
            java.util.List<String> lines = new java.util.ArrayList<>();
            for (int i = 0; i < commands.databases(); i++) {
                Keyspace k = commands.database(i);
                if (k.size() > 0) {
                    lines.add("db" + i + ":keys=" + k.size() + ",expires=" + k.expiring() + ",avg_ttl=0");
                }
            }
            section(b, "Keyspace", lines.toArray(String[]::new));
        }
        r.verbatim(b.toString());
    }

    private static void section(StringBuilder b, String name, String... lines) {
        if (!b.isEmpty()) {
            b.append("\r\n");
        }
        b.append("# ").append(name).append("\r\n");
        for (String l : lines) {
            b.append(l).append("\r\n");
        }
    }

    private static String human(long bytes) {
        return bytes < 1024 * 1024 ? String.format(Locale.ROOT, "%.2fK", bytes / 1024.0)
                : String.format(Locale.ROOT, "%.2fM", bytes / (1024.0 * 1024));
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
