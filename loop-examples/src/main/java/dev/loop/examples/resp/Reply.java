package dev.loop.examples.resp;

import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;

/** Encodes RESP2 replies into an output buffer, without allocating for the common ones. */
final class Reply {
    static final byte[] OK = ascii("+OK\r\n");
    static final byte[] PONG = ascii("+PONG\r\n");
    static final byte[] NULL_BULK = ascii("$-1\r\n");
    static final byte[] EMPTY_ARRAY = ascii("*0\r\n");
    private static final byte[] CRLF = ascii("\r\n");

    private Reply() {
    }

    static void ok(OutputBuffer out) {
        out.put(OK);
    }

    /** {@code -message}: the message starts with its kind, e.g. {@code ERR ...}; CR and LF become spaces. */
    static void error(OutputBuffer out, String message) {
        out.put((byte) '-');
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < m.length; i++) {
            if (m[i] == '\r' || m[i] == '\n') {
                m[i] = ' ';
            }
        }
        out.put(m).put(CRLF);
    }

    static void integer(OutputBuffer out, long n) {
        out.put((byte) ':').putDecimal(n).put(CRLF);
    }

    static void bulk(OutputBuffer out, byte[] value) {
        if (value == null) {
            out.put(NULL_BULK);
            return;
        }
        out.put((byte) '$').putDecimal(value.length).put(CRLF).put(value).put(CRLF);
    }

    static void bulk(OutputBuffer out, String value) {
        bulk(out, value.getBytes(StandardCharsets.UTF_8));
    }

    static void arrayHeader(OutputBuffer out, int n) {
        out.put((byte) '*').putDecimal(n).put(CRLF);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
