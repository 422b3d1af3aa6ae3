package dev.loop.net.tls;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLHandshakeException;

/**
 * Finds the SNI host name in the ClientHello at the start of a TLS stream, so a server can pick the
 * context (keys, trust) for that host before it makes its engine: the JDK's engine has to be
 * created from one context, before it reads a byte. Reads the records as RFC 8446 (section 4.1.2)
 * and RFC 6066 (section 3) lay them out; the message may span several records. Stateless.
 */
final class ClientHelloSni {
    /** The longest ClientHello looked at; real ones are a few hundred bytes to 2 KiB. */
    static final int MAX_HELLO = 32 * 1024;

    private static final int HANDSHAKE = 22;
    private static final int CLIENT_HELLO = 1;
    private static final int SERVER_NAME = 0;
    private static final int HOST_NAME = 0;

    private ClientHelloSni() {
    }

    /**
     * The host name the ClientHello in {@code in} asks for ({@code in} is not moved).
     *
     * @return the name, "" if the client sent none, or null if more bytes are needed to tell
     * @throws SSLHandshakeException if the bytes are not a TLS ClientHello
     */
    static String serverName(ByteBuffer in) throws SSLHandshakeException {
        // gather the handshake message from as many records as it takes
        ByteBuffer msg = ByteBuffer.allocate(Math.min(MAX_HELLO, Math.max(in.remaining(), 64)));
        int p = in.position();
        int need = -1; // the message's length with its 4-byte header, once known
        while (need < 0 || msg.position() < need) {
            if (in.limit() - p < 5) {
                return null;
            }
            if ((in.get(p) & 0xff) != HANDSHAKE) {
                throw new SSLHandshakeException("expected a TLS handshake record, got content type " + (in.get(p) & 0xff));
            }
            int len = ((in.get(p + 3) & 0xff) << 8) | (in.get(p + 4) & 0xff);
            if (in.limit() - p - 5 < len) {
                return null;
            }
            if (len > msg.remaining()) {
                throw new SSLHandshakeException("a ClientHello longer than " + MAX_HELLO + " bytes");
            }
            msg.put(in.duplicate().position(p + 5).limit(p + 5 + len));
            p += 5 + len;
            if (need < 0 && msg.position() >= 4) {
                if ((msg.get(0) & 0xff) != CLIENT_HELLO) {
                    throw new SSLHandshakeException("expected a ClientHello, got handshake message type " + (msg.get(0) & 0xff));
                }
                need = 4 + (((msg.get(1) & 0xff) << 16) | ((msg.get(2) & 0xff) << 8) | (msg.get(3) & 0xff));
                if (need > MAX_HELLO) {
                    throw new SSLHandshakeException("a ClientHello of " + need + " bytes, longer than " + MAX_HELLO);
                }
            }
        }
        msg.flip().position(4);
        try {
            return hostName(msg);
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new SSLHandshakeException("a malformed ClientHello");
        }
    }

    private static String hostName(ByteBuffer m) {
        skip(m, 2 + 32);                  // legacy_version, random
        skip(m, m.get() & 0xff);          // legacy_session_id
        skip(m, m.getShort() & 0xffff);   // cipher_suites
        skip(m, m.get() & 0xff);          // legacy_compression_methods
        if (!m.hasRemaining()) {
            return "";                    // no extensions at all
        }
        int end = (m.getShort() & 0xffff) + m.position();
        while (m.position() + 4 <= end) {
            int type = m.getShort() & 0xffff;
            int len = m.getShort() & 0xffff;
            int next = m.position() + len;
            if (type == SERVER_NAME) {
                int listEnd = (m.getShort() & 0xffff) + m.position();
                while (m.position() + 3 <= listEnd) {
                    int nameType = m.get() & 0xff;
                    int nameLen = m.getShort() & 0xffff;
                    if (nameType == HOST_NAME) {
                        byte[] name = new byte[nameLen];
                        m.get(name);
                        return new String(name, StandardCharsets.US_ASCII);
                    }
                    skip(m, nameLen);
                }
                return "";
            }
            m.position(next);
        }
        return "";
    }

    private static void skip(ByteBuffer m, int n) {
        m.position(m.position() + n);
    }
}
