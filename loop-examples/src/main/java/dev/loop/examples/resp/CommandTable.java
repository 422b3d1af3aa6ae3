package dev.loop.examples.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The commands the server knows, with Redis' arity convention (N: exactly N arguments counting the
 * name; -N: at least N) and what {@code COMMAND} reports about them. Immutable.
 *
 * <p>Lookup is case-insensitive and allocates nothing: the candidates of the name's length are
 * compared byte by byte with their lower-case names.
 */
final class CommandTable {
    static final int PING = 1;
    static final int ECHO = 2;
    static final int SET = 3;
    static final int GET = 4;
    static final int DEL = 5;
    static final int EXISTS = 6;
    static final int INCR = 7;
    static final int DECR = 8;
    static final int INCRBY = 9;
    static final int DECRBY = 10;
    static final int MGET = 11;
    static final int MSET = 12;
    static final int EXPIRE = 13;
    static final int PEXPIRE = 14;
    static final int TTL = 15;
    static final int PTTL = 16;
    static final int PERSIST = 17;
    static final int DBSIZE = 18;
    static final int FLUSHALL = 19;
    static final int FLUSHDB = 20;
    static final int SELECT = 21;
    static final int QUIT = 22;
    static final int COMMAND = 23;
    static final int CONFIG = 24;
    // the connection, transactions and pub/sub: numbered apart from the data commands
    static final int HELLO = 900;
    static final int AUTH = 901;
    static final int CLIENT = 902;
    static final int INFO = 903;
    static final int RESET = 904;
    static final int MULTI = 905;
    static final int EXEC = 906;
    static final int DISCARD = 907;
    static final int WATCH = 908;
    static final int UNWATCH = 909;
    static final int SUBSCRIBE = 910;
    static final int UNSUBSCRIBE = 911;
    static final int PSUBSCRIBE = 912;
    static final int PUNSUBSCRIBE = 913;
    static final int PUBLISH = 914;
    static final int PUBSUB = 915;

    /**
     * One command.
     *
     * @param firstKey position of the first key argument (0: none), as COMMAND reports it
     * @param lastKey  position of the last key (-1: the last argument)
     * @param step     distance between keys
     */
    record Spec(int id, String name, int arity, List<String> flags, int firstKey, int lastKey, int step) {
        byte[] lower() {
            return name.getBytes(StandardCharsets.US_ASCII);
        }

        /** Whether {@code argc} arguments (the name included) suit this command. */
        boolean arityAccepts(int argc) {
            return arity >= 0 ? argc == arity : argc >= -arity;
        }
    }

    private static final List<Spec> CORE = List.of(
            new Spec(PING, "ping", -1, List.of("fast"), 0, 0, 0),
            new Spec(ECHO, "echo", 2, List.of("fast"), 0, 0, 0),
            new Spec(SET, "set", -3, List.of("write", "denyoom"), 1, 1, 1),
            new Spec(GET, "get", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(DEL, "del", -2, List.of("write"), 1, -1, 1),
            new Spec(EXISTS, "exists", -2, List.of("readonly", "fast"), 1, -1, 1),
            new Spec(INCR, "incr", 2, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(DECR, "decr", 2, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(INCRBY, "incrby", 3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(DECRBY, "decrby", 3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(MGET, "mget", -2, List.of("readonly", "fast"), 1, -1, 1),
            new Spec(MSET, "mset", -3, List.of("write", "denyoom"), 1, -1, 2),
            new Spec(EXPIRE, "expire", -3, List.of("write", "fast"), 1, 1, 1),
            new Spec(PEXPIRE, "pexpire", -3, List.of("write", "fast"), 1, 1, 1),
            new Spec(TTL, "ttl", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(PTTL, "pttl", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(PERSIST, "persist", 2, List.of("write", "fast"), 1, 1, 1),
            new Spec(DBSIZE, "dbsize", 1, List.of("readonly", "fast"), 0, 0, 0),
            new Spec(FLUSHALL, "flushall", -1, List.of("write"), 0, 0, 0),
            new Spec(FLUSHDB, "flushdb", -1, List.of("write"), 0, 0, 0),
            new Spec(SELECT, "select", 2, List.of("loading", "stale", "fast"), 0, 0, 0),
            new Spec(QUIT, "quit", -1, List.of("loading", "stale", "fast"), 0, 0, 0),
            new Spec(COMMAND, "command", -1, List.of("loading", "stale"), 0, 0, 0),
            new Spec(CONFIG, "config", -2, List.of("admin", "noscript", "loading", "stale"), 0, 0, 0),
            new Spec(HELLO, "hello", -1, List.of("noscript", "loading", "stale", "fast", "no_auth"), 0, 0, 0),
            new Spec(AUTH, "auth", -2, List.of("noscript", "loading", "stale", "fast", "no_auth"), 0, 0, 0),
            new Spec(CLIENT, "client", -2, List.of("noscript", "loading", "stale"), 0, 0, 0),
            new Spec(INFO, "info", -1, List.of("loading", "stale"), 0, 0, 0),
            new Spec(RESET, "reset", 1, List.of("noscript", "loading", "stale", "fast", "no_auth"), 0, 0, 0),
            new Spec(MULTI, "multi", 1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0),
            new Spec(EXEC, "exec", 1, List.of("noscript", "loading", "stale"), 0, 0, 0),
            new Spec(DISCARD, "discard", 1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0),
            new Spec(WATCH, "watch", -2, List.of("noscript", "loading", "stale", "fast"), 1, -1, 1),
            new Spec(UNWATCH, "unwatch", 1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0),
            new Spec(SUBSCRIBE, "subscribe", -2, List.of("pubsub", "noscript", "loading", "stale"), 0, 0, 0),
            new Spec(UNSUBSCRIBE, "unsubscribe", -1, List.of("pubsub", "noscript", "loading", "stale"), 0, 0, 0),
            new Spec(PSUBSCRIBE, "psubscribe", -2, List.of("pubsub", "noscript", "loading", "stale"), 0, 0, 0),
            new Spec(PUNSUBSCRIBE, "punsubscribe", -1, List.of("pubsub", "noscript", "loading", "stale"), 0, 0, 0),
            new Spec(PUBLISH, "publish", 3, List.of("pubsub", "loading", "stale", "fast"), 0, 0, 0),
            new Spec(PUBSUB, "pubsub", -2, List.of("pubsub", "loading", "stale"), 0, 0, 0));

    /** Every command: the core ones, then those on typed values. */
    static final List<Spec> ALL = java.util.stream.Stream.concat(CORE.stream(), DataCommandTable.ALL.stream())
            .toList();

    private static final int MAX_NAME = 16;
    /** Specs by name length, then their lower-case names, side by side. */
    private static final Spec[][] BY_LENGTH = new Spec[MAX_NAME + 1][];
    private static final byte[][][] NAMES = new byte[MAX_NAME + 1][][];
    /** The same names in upper case, as most clients (and redis-benchmark) send them. */
    private static final byte[][][] UPPER_NAMES = new byte[MAX_NAME + 1][][];

    static {
        for (int len = 0; len <= MAX_NAME; len++) {
            List<Spec> l = new ArrayList<>();
            for (Spec s : ALL) {
                if (s.name().length() == len) {
                    l.add(s);
                }
            }
            BY_LENGTH[len] = l.toArray(Spec[]::new);
            NAMES[len] = l.stream().map(Spec::lower).toArray(byte[][]::new);
            UPPER_NAMES[len] = l.stream().map(x -> x.name().toUpperCase(java.util.Locale.ROOT)
                    .getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
        }
    }

    private CommandTable() {
    }

    /** The command named {@code name} in any case, or null. */
    static Spec lookup(byte[] name) {
        if (name.length > MAX_NAME) {
            return null;
        }
        byte[][] names = NAMES[name.length];
        outer:
        for (int k = 0; k < names.length; k++) {
            byte[] lower = names[k];
            for (int i = 0; i < lower.length; i++) {
                int c = name[i];
                if (c >= 'A' && c <= 'Z') {
                    c += 32;
                }
                if (c != lower[i]) {
                    continue outer;
                }
            }
            return BY_LENGTH[name.length][k];
        }
        return null;
    }

    /**
     * A shared array holding exactly {@code b[from, from + len)} when those bytes are a command's
     * name all in lower or all in upper case, else null: the parser hands it out as the command's
     * first argument instead of a copy, so the name of a known command costs no allocation. Nothing
     * writes into an argument, so one array serves every connection on every thread.
     */
    static byte[] sharedName(byte[] b, int from, int len) {
        if (len > MAX_NAME) {
            return null;
        }
        byte[][] lower = NAMES[len];
        for (int k = 0; k < lower.length; k++) {
            if (java.util.Arrays.equals(lower[k], 0, len, b, from, from + len)) {
                return lower[k];
            }
            byte[] upper = UPPER_NAMES[len][k];
            if (java.util.Arrays.equals(upper, 0, len, b, from, from + len)) {
                return upper;
            }
        }
        return null;
    }

    /** Case-insensitive comparison of an argument with a lower-case ASCII word. */
    static boolean is(byte[] arg, String lowerWord) {
        if (arg.length != lowerWord.length()) {
            return false;
        }
        for (int i = 0; i < arg.length; i++) {
            int c = arg[i];
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lowerWord.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
