package dev.loop.examples.http;

import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Writes response heads and the small bodies (plaintext, JSON, errors) into a loop's output
 * buffer. Every constant part is encoded once; a response costs array copies and the digits of
 * its length.
 */
final class Responses {
    static final byte[] CONTINUE = ascii("HTTP/1.1 100 Continue\r\n\r\n");
    static final byte[] TEXT = ascii("text/plain");
    static final byte[] TEXT_UTF8 = ascii("text/plain; charset=utf-8");
    static final byte[] JSON = ascii("application/json");
    static final byte[] HELLO = ascii("Hello, World!");
    static final byte[] ALLOW_GET = ascii("Allow: GET, HEAD\r\n");
    static final byte[] ALLOW_POST = ascii("Allow: POST\r\n");
    static final byte[] ALLOW_ALL = ascii("Allow: GET, HEAD, POST, OPTIONS\r\n");

    private static final byte[] SERVER = ascii("Server: loop\r\n");
    private static final byte[] CONTENT_TYPE = ascii("Content-Type: ");
    private static final byte[] CONTENT_LENGTH = ascii("\r\nContent-Length: ");
    private static final byte[] CLOSE = ascii("\r\nConnection: close");
    private static final byte[] KEEP_ALIVE = ascii("\r\nConnection: keep-alive");
    private static final byte[] END = ascii("\r\n\r\n");
    private static final byte[] CLOSE_LINE = ascii("Connection: close\r\n");
    private static final byte[] KEEP_ALIVE_LINE = ascii("Connection: keep-alive\r\n");
    private static final byte[] CRLF = ascii("\r\n");
    private static final byte[] MESSAGE_KEY = ascii("{\"message\":");
    private static final byte[][] STATUS = new byte[600][];

    static {
        status(200, "OK");
        status(206, "Partial Content");
        status(304, "Not Modified");
        status(400, "Bad Request");
        status(403, "Forbidden");
        status(404, "Not Found");
        status(405, "Method Not Allowed");
        status(408, "Request Timeout");
        status(413, "Content Too Large");
        status(412, "Precondition Failed");
        status(414, "URI Too Long");
        status(416, "Range Not Satisfiable");
        status(417, "Expectation Failed");
        status(431, "Request Header Fields Too Large");
        status(500, "Internal Server Error");
        status(501, "Not Implemented");
        status(505, "HTTP Version Not Supported");
    }

    private Responses() {
    }

    private static void status(int code, String reason) {
        STATUS[code] = ascii("HTTP/1.1 " + code + " " + reason + "\r\n");
    }

    /**
     * Writes a response head: status line, {@code Server}, {@code Date}, any {@code extra} header
     * lines, {@code Content-Type}, {@code Content-Length} and, for a closing connection or an
     * HTTP/1.0 keep-alive one, {@code Connection}.
     *
     * @param connection 0: no Connection header; 1: keep-alive; -1: close
     */
    static void head(OutputBuffer out, HttpDate date, int status, byte[] extra, byte[] type, long length,
                     int connection) {
        byte[] line = status < STATUS.length ? STATUS[status] : null;
        out.put(line != null ? line : STATUS[500]);
        out.put(SERVER).put(date.line());
        if (extra != null) {
            out.put(extra);
        }
        out.put(CONTENT_TYPE).put(type).put(CONTENT_LENGTH).putDecimal(length);
        if (connection < 0) {
            out.put(CLOSE);
        } else if (connection > 0) {
            out.put(KEEP_ALIVE);
        }
        out.put(END);
    }

    /**
     * A response head without content and without content metadata, as a 304 is sent (RFC 9110,
     * 15.4.5): status line, {@code Server}, {@code Date}, the {@code extra} lines, {@code Connection}.
     */
    static void headWithoutContent(OutputBuffer out, HttpDate date, int status, byte[] extra, int connection) {
        out.put(STATUS[status]).put(SERVER).put(date.line());
        if (extra != null) {
            out.put(extra);
        }
        if (connection < 0) {
            out.put(CLOSE_LINE);
        } else if (connection > 0) {
            out.put(KEEP_ALIVE_LINE);
        }
        out.put(CRLF);
    }

    /** The TechEmpower plaintext response. */
    static void plaintext(OutputBuffer out, HttpDate date, boolean withBody, int connection) {
        head(out, date, 200, null, TEXT, HELLO.length, connection);
        if (withBody) {
            out.put(HELLO);
        }
    }

    /** The TechEmpower JSON response: {@code {"message":"Hello, World!"}}, encoded per request. */
    static void json(OutputBuffer out, OutputBuffer scratch, HttpDate date, boolean withBody, int connection) {
        scratch.reset();
        scratch.put(MESSAGE_KEY);
        jsonString(scratch, "Hello, World!");
        scratch.put((byte) '}');
        head(out, date, 200, null, JSON, scratch.size(), connection);
        if (withBody) {
            out.put(scratch);
        }
    }

    /** A short plain-text answer with the status and the reason, e.g. for errors. */
    static void text(OutputBuffer out, HttpDate date, int status, byte[] extra, String reason, boolean withBody,
                     int connection) {
        byte[] body = (status + " " + reason + "\n").getBytes(StandardCharsets.UTF_8);
        head(out, date, status, extra, TEXT_UTF8, body.length, connection);
        if (withBody) {
            out.put(body);
        }
    }

    /** Appends {@code s} as a JSON string literal, escaping what RFC 8259 requires. */
    static void jsonString(OutputBuffer out, String s) {
        out.put((byte) '"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.put((byte) '\\').put((byte) c);
            } else if (c < 0x20) {
                out.putAscii(String.format("\\u%04x", (int) c));
            } else if (c < 0x80) {
                out.put((byte) c);
            } else {
                int cp = s.codePointAt(i);
                out.put(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(cp) - 1;
            }
        }
        out.put((byte) '"');
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
