package dev.loop.examples.resp;

import dev.loop.examples.io.InputBuffer;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Parses requests (the same in RESP2 and RESP3), multibulk ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) and inline
 * ({@code GET k\r\n}), from a connection's input as it arrives. Not thread-safe: one per
 * connection.
 *
 * <p>Resumable, like Redis' own: a command whose arguments arrive in pieces keeps the arguments
 * already complete and the length of the one in progress, so no byte is parsed twice however the
 * input is split. Each argument is copied out once, into an array of its exact size: that array
 * becomes the key or value stored, so there is no other per-argument allocation.
 *
 * <p>In steady state a command costs no allocation but the values it stores:
 * <ul>
 * <li>the array of a command's arguments (of the few arities most commands have) comes from a
 *     pool that is handed out again from the start at each {@link #newBatch()}: the caller
 *     promises that nothing holds a command of the batch before by then (a MULTI queue copies
 *     it);
 * <li>a known command's name, sent in lower or upper case, is a shared array
 *     ({@link CommandTable#sharedName}) rather than a copy;
 * <li>the key of a single-key command is looked up in a small cache of this connection's recent
 *     keys and reused when the same bytes come again (a key array is never written into, so one
 *     array may be a key in the keyspace and in the cache at once).
 * </ul>
 * The pool and the cache are bounded ({@value #POOLED_PER_ARITY} arrays per arity, {@value #KEY_CACHE}
 * keys of at most {@value #MAX_CACHED_KEY} bytes) and filled only as the client's commands need them.
 */
final class RespParser {
    /** Longest inline command, and longest {@code *N} or {@code $N} line (Redis' PROTO_INLINE_MAX_SIZE). */
    static final int MAX_INLINE = 64 * 1024;
    static final byte[][] EMPTY = new byte[0][];
    /**
     * The most room made ahead of a bulk's bytes from its {@code $N} header alone: beyond it the
     * buffer grows only as the bytes arrive, so a header that lies costs no more than this.
     */
    static final int PRESIZE_CAP = 64 * 1024;
    /**
     * What an argument costs beyond its bytes (its array's header, its slot in argv), counted
     * against the command's limit so that a million empty arguments are not free to send.
     */
    static final int ARG_OVERHEAD = 24;

    private final int maxArgs;
    private final int maxBulk;
    private final long maxCommand;

    /** Arities whose argument arrays are pooled: PING 1, GET 2, SET 3, HSET 4, SET EX 5. */
    static final int POOLED_ARITY = 5;
    /** Pooled arrays per arity: a batch of more commands of one arity allocates the rest. */
    static final int POOLED_PER_ARITY = 32;
    /** Keys remembered for reuse (a power of two: a key's slot is its hash's low bits). */
    static final int KEY_CACHE = 16;
    /** Longer keys are copied every time: the cache must not hold on to large arrays. */
    static final int MAX_CACHED_KEY = 64;

    private byte[][] argv;
    private int argc;
    private int argvSlot = -1; // argv's slot in the pool while its command is in progress, or -1
    private boolean keyAt1;    // the command in progress is a known one with its only key at 1
    private byte[][][][] pool; // [arity][slot], made as needed: a connection that never sends a command holds none
    private int[] taken;       // per arity, the pool's arrays handed out in this batch
    private byte[][] keys;     // the key cache, made at the first key
    private long expected = -1; // arguments of the multibulk in progress, or -1 between commands
    private long bulkLength = -1; // length of the argument in progress, or -1 before its $ line
    private long commandBytes;

    /**
     * @param maxArgs    arguments per command at most ({@code *N} with a larger N is refused)
     * @param maxBulk    bytes per argument at most
     * @param maxCommand bytes of all a command's arguments together at most, each counted with
     *                   {@link #ARG_OVERHEAD}
     */
    RespParser(int maxArgs, int maxBulk, long maxCommand) {
        this.maxArgs = maxArgs;
        this.maxBulk = maxBulk;
        this.maxCommand = maxCommand;
    }

    /**
     * Starts a new batch: the argument arrays of the commands returned so far are handed out again
     * (and dropped from here, so the pool holds no argument of theirs). Call it only once nothing
     * holds on to those commands' arrays.
     */
    void newBatch() {
        if (pool == null) {
            return;
        }
        if (argvSlot >= 0) {
            pool[argv.length][argvSlot] = null; // the command in progress keeps its array: no longer the pool's
            argvSlot = -1;
        }
        for (int n = 1; n <= POOLED_ARITY; n++) {
            byte[][][] p = pool[n];
            for (int i = 0; i < taken[n]; i++) {
                if (p[i] != null) {
                    java.util.Arrays.fill(p[i], null);
                }
            }
            taken[n] = 0;
        }
    }

    /** An array for {@code n} arguments: a pooled one of exactly n, or a new one (at most 1024 long to start with). */
    private byte[][] newArgv(long n) {
        if (n <= POOLED_ARITY) {
            int arity = (int) n;
            int slot = taken == null ? 0 : taken[arity];
            if (slot < POOLED_PER_ARITY) {
                if (pool == null) {
                    pool = new byte[POOLED_ARITY + 1][][][];
                    taken = new int[POOLED_ARITY + 1];
                }
                byte[][][] p = pool[arity];
                if (p == null) {
                    p = pool[arity] = new byte[POOLED_PER_ARITY][][];
                }
                byte[][] a = p[slot];
                if (a == null) {
                    a = p[slot] = new byte[arity][];
                }
                taken[arity] = slot + 1;
                argvSlot = slot;
                return a;
            }
        }
        argvSlot = -1;
        return new byte[(int) Math.min(n, 1024)][]; // *1000000 must not allocate 8 MB up front
    }

    /** Argument {@code index} of a command, {@code b[from, from + len)}: shared, cached or copied. */
    private byte[] argument(int index, byte[] b, int from, int len) {
        if (index == 0) {
            byte[] name = CommandTable.sharedName(b, from, len);
            byte[] copy = name != null ? name : Arrays.copyOfRange(b, from, from + len);
            CommandTable.Spec spec = CommandTable.lookup(copy);
            keyAt1 = spec != null && spec.firstKey() == 1 && spec.lastKey() == 1;
            return copy;
        }
        if (index != 1 || !keyAt1 || len > MAX_CACHED_KEY) {
            return Arrays.copyOfRange(b, from, from + len);
        }
        int h = 1;
        for (int i = from; i < from + len; i++) {
            h = 31 * h + b[i];
        }
        h ^= h >>> 16;
        if (keys == null) {
            keys = new byte[KEY_CACHE][];
        }
        int slot = h & (KEY_CACHE - 1);
        byte[] k = keys[slot];
        if (k != null && Arrays.equals(k, 0, k.length, b, from, from + len)) {
            return k;
        }
        k = Arrays.copyOfRange(b, from, from + len);
        keys[slot] = k;
        return k;
    }

    /**
     * The next complete command in {@code in}, its bytes consumed.
     *
     * @return the arguments (the command name first), {@link #EMPTY} for an empty command, which is
     *         ignored, or null when the command is not complete yet
     */
    byte[][] next(InputBuffer in) throws ProtocolError {
        if (expected < 0) {
            if (in.isEmpty()) {
                return null;
            }
            if (in.array()[in.start()] != '*') {
                return inline(in);
            }
            long n = numberLine(in, '*', "too big mbulk count string", "invalid multibulk length");
            if (n == Long.MIN_VALUE) {
                return null;
            }
            if (n > maxArgs) {
                throw new ProtocolError("invalid multibulk length");
            }
            if (n <= 0) {
                return EMPTY;
            }
            expected = n;
            argc = 0;
            commandBytes = 0;
            keyAt1 = false;
            argv = newArgv(n);
        }
        while (argc < expected) {
            if (bulkLength < 0) {
                if (in.isEmpty()) {
                    return null;
                }
                byte c = in.array()[in.start()];
                if (c != '$') {
                    throw new ProtocolError("expected '$', got '" + (char) (c & 0xff) + "'");
                }
                long len = numberLine(in, '$', "too big bulk count string", "invalid bulk length");
                if (len == Long.MIN_VALUE) {
                    return null;
                }
                if (len < 0 || len > maxBulk) {
                    throw new ProtocolError("invalid bulk length");
                }
                commandBytes += len + ARG_OVERHEAD;
                if (commandBytes > maxCommand) {
                    throw new ProtocolError("command of more than " + maxCommand + " bytes");
                }
                bulkLength = len;
            }
            int need = (int) bulkLength + 2;
            if (in.size() < need) {
                // room for the value ahead of it, but only up to a cap: beyond it the buffer doubles
                // as bytes arrive, so memory follows what the client sent, not what it declared
                in.ensureRoom(Math.min(need - in.size(), PRESIZE_CAP));
                return null;
            }
            int s = in.start();
            if (argc == argv.length) {
                argv = Arrays.copyOf(argv, (int) Math.min(expected, argv.length * 2L));
            }
            argv[argc] = argument(argc, in.array(), s, (int) bulkLength);
            argc++;
            in.consumeTo(s + need); // the CRLF after the data is skipped unchecked, as Redis does
            bulkLength = -1;
        }
        expected = -1;
        byte[][] done = argc == argv.length ? argv : Arrays.copyOf(argv, argc);
        argv = null;
        argvSlot = -1; // the array is the batch's now, until the next newBatch()
        return done;
    }

    /** Bytes of the command in progress already taken out of the input (its complete arguments). */
    long pendingBytes() {
        return expected < 0 ? 0 : commandBytes - (bulkLength < 0 ? 0 : bulkLength + ARG_OVERHEAD);
    }

    /**
     * Parses a {@code <prefix>N\r\n} line at the start of {@code in} and consumes it.
     *
     * @return N, or {@link Long#MIN_VALUE} when the line is not complete yet
     */
    private static long numberLine(InputBuffer in, char prefix, String tooLong, String invalid) throws ProtocolError {
        byte[] b = in.array();
        int s = in.start();
        // the line ends at CR, as redis-server reads it: a bare LF is part of the number (and so
        // refused), and a line without CR waits for more input up to the inline limit
        int cr = indexOf(b, s, in.end(), (byte) '\r');
        if (cr < 0) {
            if (in.size() > MAX_INLINE) {
                throw new ProtocolError(tooLong);
            }
            return Long.MIN_VALUE;
        }
        if (cr + 1 >= in.end()) {
            return Long.MIN_VALUE; // the byte after CR has not arrived yet
        }
        if (!Numbers.isLong(b, s + 1, cr)) {
            throw new ProtocolError(invalid);
        }
        long n = Numbers.parseLong(b, s + 1, cr);
        in.consumeTo(cr + 2); // the byte after CR is skipped unchecked, as redis-server does
        return n;
    }

    /** An inline command: arguments split at spaces, with Redis' quoting rules. */
    private byte[][] inline(InputBuffer in) throws ProtocolError {
        byte[] b = in.array();
        int s = in.start();
        int nl = indexOf(b, s, in.end(), (byte) '\n');
        if (nl < 0) {
            if (in.size() > MAX_INLINE) {
                throw new ProtocolError("too big inline request");
            }
            return null;
        }
        int stop = nl > s && b[nl - 1] == '\r' ? nl - 1 : nl;
        byte[][] args = unquoted(b, s, stop);
        if (args == null) {
            args = split(b, s, stop);
        }
        in.consumeTo(nl + 1);
        return args;
    }

    /**
     * An inline command without quotes, split at spaces into pooled or exact arrays as a
     * multibulk one is ({@code PING}, as redis-benchmark sends it); null if it has quotes, which
     * {@link #split} handles.
     */
    private byte[][] unquoted(byte[] b, int from, int to) {
        int n = 0;
        boolean inArg = false;
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == '"' || c == '\'') {
                return null;
            }
            boolean space = isSpace(c);
            if (!space && !inArg) {
                n++;
            }
            inArg = !space;
        }
        if (n == 0) {
            return EMPTY;
        }
        keyAt1 = false;
        byte[][] args = n <= POOLED_ARITY ? newArgv(n) : new byte[n][];
        argvSlot = -1; // complete at once: the batch's from here
        int k = 0;
        int i = from;
        while (k < n) {
            while (isSpace(b[i])) {
                i++;
            }
            int start = i;
            while (i < to && !isSpace(b[i])) {
                i++;
            }
            args[k] = argument(k, b, start, i - start);
            k++;
        }
        return args;
    }

    /** Splits like Redis' sdssplitargs: "double quotes" with escapes, 'single quotes', spaces between. */
    static byte[][] split(byte[] b, int from, int to) throws ProtocolError {
        List<byte[]> args = new ArrayList<>();
        int i = from;
        ByteArrayOutputStream arg = new ByteArrayOutputStream();
        while (true) {
            while (i < to && isSpace(b[i])) {
                i++;
            }
            if (i >= to) {
                return args.isEmpty() ? EMPTY : args.toArray(byte[][]::new);
            }
            arg.reset();
            boolean inDouble = false;
            boolean inSingle = false;
            while (true) {
                if (i >= to) {
                    if (inDouble || inSingle) {
                        throw new ProtocolError("unbalanced quotes in request");
                    }
                    break;
                }
                byte c = b[i];
                if (inDouble) {
                    if (c == '\\' && i + 3 < to && b[i + 1] == 'x' && hex(b[i + 2]) >= 0 && hex(b[i + 3]) >= 0) {
                        arg.write(hex(b[i + 2]) * 16 + hex(b[i + 3]));
                        i += 3;
                    } else if (c == '\\' && i + 1 < to) {
                        i++;
                        arg.write(switch (b[i]) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> b[i];
                        });
                    } else if (c == '"') {
                        if (i + 1 < to && !isSpace(b[i + 1])) {
                            throw new ProtocolError("unbalanced quotes in request"); // a quote must end the argument
                        }
                        inDouble = false;
                        i++;
                        break;
                    } else {
                        arg.write(c);
                    }
                } else if (inSingle) {
                    if (c == '\\' && i + 1 < to && b[i + 1] == '\'') {
                        arg.write('\'');
                        i++;
                    } else if (c == '\'') {
                        if (i + 1 < to && !isSpace(b[i + 1])) {
                            throw new ProtocolError("unbalanced quotes in request");
                        }
                        inSingle = false;
                        i++;
                        break;
                    } else {
                        arg.write(c);
                    }
                } else if (isSpace(c)) {
                    break;
                } else if (c == '"') {
                    inDouble = true;
                } else if (c == '\'') {
                    inSingle = true;
                } else {
                    arg.write(c);
                }
                i++;
            }
            args.add(arg.toByteArray());
        }
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static int hex(byte c) {
        return Character.digit(c, 16);
    }

    static int indexOf(byte[] b, int from, int to, byte c) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
