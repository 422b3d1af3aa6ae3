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

    private byte[][] argv;
    private int argc;
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
            argv = new byte[(int) Math.min(n, 1024)][]; // *1000000 must not allocate 8 MB up front
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
            argv[argc++] = Arrays.copyOfRange(in.array(), s, s + (int) bulkLength);
            in.consumeTo(s + need); // the CRLF after the data is skipped unchecked, as Redis does
            bulkLength = -1;
        }
        expected = -1;
        byte[][] done = argc == argv.length ? argv : Arrays.copyOf(argv, argc);
        argv = null;
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
    private static byte[][] inline(InputBuffer in) throws ProtocolError {
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
        byte[][] args = split(b, s, stop);
        in.consumeTo(nl + 1);
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
