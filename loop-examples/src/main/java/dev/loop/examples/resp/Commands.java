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
    private final Keyspace keys;
    private final StringCommands strings;
    /** What {@code CONFIG GET} answers: redis-benchmark asks for {@code save} and {@code appendonly}. */
    private final Map<String, String> config;

    Commands(Keyspace keys, Map<String, String> config) {
        this.keys = keys;
        this.strings = new StringCommands(keys);
        this.config = new LinkedHashMap<>(config);
    }

    Keyspace keyspace() {
        return keys;
    }

    /**
     * Runs one command and writes its reply to {@code out}.
     *
     * @return true if the connection is to be closed once the reply is written ({@code QUIT})
     */
    boolean execute(byte[][] argv, OutputBuffer out) {
        Spec spec = CommandTable.lookup(argv[0]);
        if (spec == null) {
            unknownCommand(argv, out);
            return false;
        }
        if (!spec.arityAccepts(argv.length)) {
            wrongArity(out, spec.name());
            return false;
        }
        switch (spec.id()) {
            case CommandTable.PING -> {
                if (argv.length > 2) {
                    wrongArity(out, "ping");
                } else if (argv.length == 2) {
                    Reply.bulk(out, argv[1]);
                } else {
                    out.put(Reply.PONG);
                }
            }
            case CommandTable.ECHO -> Reply.bulk(out, argv[1]);
            case CommandTable.DBSIZE -> Reply.integer(out, keys.size());
            case CommandTable.FLUSHALL, CommandTable.FLUSHDB -> {
                if (argv.length > 2 || (argv.length == 2 && !CommandTable.is(argv[1], "async")
                        && !CommandTable.is(argv[1], "sync"))) {
                    Reply.error(out, "ERR syntax error");
                } else {
                    keys.clear();
                    Reply.ok(out);
                }
            }
            case CommandTable.SELECT -> {
                if (!Numbers.isLong(argv[1])) {
                    Reply.error(out, StringCommands.NOT_AN_INTEGER);
                } else if (Numbers.parseLong(argv[1]) != 0) {
                    Reply.error(out, "ERR DB index is out of range");
                } else {
                    Reply.ok(out);
                }
            }
            case CommandTable.QUIT -> {
                Reply.ok(out);
                return true;
            }
            case CommandTable.COMMAND -> command(argv, out);
            case CommandTable.CONFIG -> config(argv, out);
            default -> strings.execute(spec.id(), argv, out);
        }
        return false;
    }

    static void wrongArity(OutputBuffer out, String name) {
        Reply.error(out, "ERR wrong number of arguments for '" + name + "' command");
    }

    /** Redis' message: the name and up to 128 characters of the arguments, each quoted. */
    private static void unknownCommand(byte[][] argv, OutputBuffer out) {
        StringBuilder args = new StringBuilder();
        for (int i = 1; i < argv.length && args.length() < 128; i++) {
            String a = new String(argv[i], StandardCharsets.UTF_8);
            args.append('\'').append(a, 0, Math.min(a.length(), 128 - args.length())).append("' ");
        }
        String name = new String(argv[0], StandardCharsets.UTF_8);
        Reply.error(out, "ERR unknown command '" + name.substring(0, Math.min(128, name.length()))
                + "', with args beginning with: " + args);
    }

    /** {@code COMMAND}, {@code COMMAND COUNT|LIST|INFO|DOCS}: enough for redis-cli and redis-benchmark. */
    private static void command(byte[][] argv, OutputBuffer out) {
        if (argv.length == 1) {
            Reply.arrayHeader(out, CommandTable.ALL.size());
            CommandTable.ALL.forEach(s -> describe(s, out));
        } else if (CommandTable.is(argv[1], "count")) {
            Reply.integer(out, CommandTable.ALL.size());
        } else if (CommandTable.is(argv[1], "list")) {
            Reply.arrayHeader(out, CommandTable.ALL.size());
            CommandTable.ALL.forEach(s -> Reply.bulk(out, s.name()));
        } else if (CommandTable.is(argv[1], "info")) {
            if (argv.length == 2) {
                Reply.arrayHeader(out, CommandTable.ALL.size());
                CommandTable.ALL.forEach(s -> describe(s, out));
                return;
            }
            Reply.arrayHeader(out, argv.length - 2);
            for (int i = 2; i < argv.length; i++) {
                Spec s = CommandTable.lookup(argv[i]);
                if (s == null) {
                    out.put(Reply.ascii("*-1\r\n"));
                } else {
                    describe(s, out);
                }
            }
        } else if (CommandTable.is(argv[1], "docs")) {
            out.put(Reply.EMPTY_ARRAY); // no documentation: clients fall back to their own help
        } else {
            Reply.error(out, "ERR unknown subcommand '" + new String(argv[1], StandardCharsets.UTF_8)
                    + "'. Try COMMAND HELP.");
        }
    }

    /** A command as Redis 7 describes it in RESP2: ten fields, the last four empty here. */
    private static void describe(Spec s, OutputBuffer out) {
        Reply.arrayHeader(out, 10);
        Reply.bulk(out, s.name());
        Reply.integer(out, s.arity());
        Reply.arrayHeader(out, s.flags().size());
        s.flags().forEach(f -> out.put((byte) '+').putAscii(f).putAscii("\r\n"));
        Reply.integer(out, s.firstKey());
        Reply.integer(out, s.lastKey());
        Reply.integer(out, s.step());
        for (int i = 0; i < 4; i++) {
            out.put(Reply.EMPTY_ARRAY);
        }
    }

    /** {@code CONFIG GET pattern...}: the parameters matching any pattern, as name/value pairs. */
    private void config(byte[][] argv, OutputBuffer out) {
        if (!CommandTable.is(argv[1], "get")) {
            Reply.error(out, "ERR unknown subcommand '" + new String(argv[1], StandardCharsets.UTF_8)
                    + "'. Try CONFIG HELP.");
            return;
        }
        if (argv.length < 3) {
            wrongArity(out, "config|get");
            return;
        }
        Map<String, String> found = new LinkedHashMap<>();
        for (int i = 2; i < argv.length; i++) {
            String pattern = new String(argv[i], StandardCharsets.UTF_8);
            config.forEach((k, v) -> {
                if (Glob.matches(pattern, k)) {
                    found.put(k, v);
                }
            });
        }
        Reply.arrayHeader(out, found.size() * 2);
        found.forEach((k, v) -> {
            Reply.bulk(out, k);
            Reply.bulk(out, v);
        });
    }

    /** Glob patterns as CONFIG GET takes them: {@code *}, {@code ?}, case-insensitive. */
    static final class Glob {
        private Glob() {
        }

        static boolean matches(String pattern, String s) {
            return match(pattern.toLowerCase(java.util.Locale.ROOT), 0, s.toLowerCase(java.util.Locale.ROOT), 0);
        }

        /** Two pointers, back to the last star on a mismatch: O(pattern x string), never exponential. */
        private static boolean match(String p, int pi, String s, int si) {
            int star = -1;
            int retry = 0;
            while (si < s.length()) {
                if (pi < p.length() && (p.charAt(pi) == '?' || p.charAt(pi) == s.charAt(si))) {
                    pi++;
                    si++;
                } else if (pi < p.length() && p.charAt(pi) == '*') {
                    star = pi++;
                    retry = si;
                } else if (star >= 0) {
                    pi = star + 1;
                    si = ++retry;
                } else {
                    return false;
                }
            }
            while (pi < p.length() && p.charAt(pi) == '*') {
                pi++;
            }
            return pi == p.length();
        }
    }
}
