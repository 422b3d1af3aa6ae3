package dev.loop.examples.resp;

import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes one client's replies in the protocol it chose ({@code HELLO 2} or {@code HELLO 3}),
 * into whichever buffer the batch is being answered in. One per client, pointed at a buffer with
 * {@link #to} before each command: encoding allocates nothing for the common replies.
 *
 * <p>Where RESP3 has a type of its own (null, map, set, double, boolean, push) the RESP2 form is
 * the one redis-server gives a RESP2 client, so one command body serves both protocols.
 */
final class Reply {
    static final byte[] OK = ascii("+OK\r\n");
    static final byte[] PONG = ascii("+PONG\r\n");
    private static final byte[] NULL_BULK = ascii("$-1\r\n");
    private static final byte[] NULL_ARRAY = ascii("*-1\r\n");
    private static final byte[] NULL3 = ascii("_\r\n");
    private static final byte[] TRUE3 = ascii("#t\r\n");
    private static final byte[] FALSE3 = ascii("#f\r\n");
    static final byte[] CRLF = ascii("\r\n");
    static final byte[] EMPTY = new byte[0];

    private OutputBuffer out;
    private boolean resp3;

    /** Answers in RESP3 from now on (true), or RESP2. */
    void protocol(int version) {
        this.resp3 = version == 3;
    }

    int protocol() {
        return resp3 ? 3 : 2;
    }

    boolean resp3() {
        return resp3;
    }

    /** Points this writer at the buffer the current batch is answered in. */
    Reply to(OutputBuffer buffer) {
        this.out = buffer;
        return this;
    }

    OutputBuffer buffer() {
        return out;
    }

    void raw(byte[] bytes) {
        out.put(bytes);
    }

    void ok() {
        out.put(OK);
    }

    /** {@code +status}: a simple string, no CR or LF in it. */
    void status(String s) {
        out.put((byte) '+').putAscii(s).put(CRLF);
    }

    /** {@code -message}: the message starts with its kind, e.g. {@code ERR ...}; CR and LF become spaces. */
    void error(String message) {
        out.put((byte) '-');
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < m.length; i++) {
            if (m[i] == '\r' || m[i] == '\n') {
                m[i] = ' ';
            }
        }
        out.put(m).put(CRLF);
    }

    void integer(long n) {
        out.put((byte) ':').putDecimal(n).put(CRLF);
    }

    /** A bulk string, or the null reply for {@code null}. */
    void bulk(byte[] value) {
        if (value == null) {
            nullBulk();
            return;
        }
        out.put((byte) '$').putDecimal(value.length).put(CRLF).put(value).put(CRLF);
    }

    void bulk(String value) {
        bulk(value.getBytes(StandardCharsets.UTF_8));
    }

    /** What a missing value reads as: {@code $-1} in RESP2, {@code _} in RESP3. */
    void nullBulk() {
        out.put(resp3 ? NULL3 : NULL_BULK);
    }

    /** What a missing array reads as: {@code *-1} in RESP2, {@code _} in RESP3. */
    void nullArray() {
        out.put(resp3 ? NULL3 : NULL_ARRAY);
    }

    void arrayHeader(int n) {
        out.put((byte) '*').putDecimal(n).put(CRLF);
    }

    /** A map of {@code pairs} keys and values: {@code %} in RESP3, a flat array of twice as many in RESP2. */
    void mapHeader(int pairs) {
        if (resp3) {
            out.put((byte) '%').putDecimal(pairs).put(CRLF);
        } else {
            arrayHeader(pairs * 2);
        }
    }

    /** A set: {@code ~} in RESP3, an array in RESP2. */
    void setHeader(int n) {
        if (resp3) {
            out.put((byte) '~').putDecimal(n).put(CRLF);
        } else {
            arrayHeader(n);
        }
    }

    /** An out-of-band message (pub/sub): {@code >} in RESP3, an array in RESP2. */
    void pushHeader(int n) {
        if (resp3) {
            out.put((byte) '>').putDecimal(n).put(CRLF);
        } else {
            arrayHeader(n);
        }
    }

    /** A boolean: {@code #t}/{@code #f} in RESP3, the integers 1 and 0 in RESP2. */
    void bool(boolean b) {
        if (resp3) {
            out.put(b ? TRUE3 : FALSE3);
        } else {
            integer(b ? 1 : 0);
        }
    }

    /**
     * A double, written as Redis writes it ({@code %.17g}-like shortest form, {@code inf},
     * {@code -inf}): {@code ,} in RESP3, a bulk string in RESP2.
     */
    void doubleValue(double d) {
        String s = Numbers.formatDouble(d);
        if (resp3) {
            out.put((byte) ',').putAscii(s).put(CRLF);
        } else {
            bulk(s);
        }
    }

    /**
     * Text meant for people (INFO, CLIENT INFO): a verbatim string {@code =N\r\ntxt:...} in RESP3,
     * a bulk string in RESP2.
     */
    void verbatim(String text) {
        if (!resp3) {
            bulk(text);
            return;
        }
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        out.put((byte) '=').putDecimal(b.length + 4).put(CRLF).putAscii("txt:").put(b).put(CRLF);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
