package dev.loop.examples.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Reads HTTP/1.1 responses off a raw socket, one at a time, for tests that send raw requests. */
final class RawHttp {
    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /**
     * Reads one response whose body has a {@code Content-Length} (or none, for {@code HEAD} or a
     * {@code 100 Continue}).
     *
     * @return null at end of stream before a status line
     */
    static Response read(InputStream in, boolean headRequest) throws IOException {
        String status = line(in);
        if (status == null) {
            return null;
        }
        if (!status.startsWith("HTTP/1.1 ")) {
            throw new IOException("not a status line: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        Map<String, String> headers = new TreeMap<>();
        for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        String length = headers.get("content-length");
        byte[] body = new byte[0];
        if (!headRequest && length != null) {
            body = in.readNBytes(Integer.parseInt(length));
        }
        return new Response(code, headers, body);
    }

    static Response read(InputStream in) throws IOException {
        return read(in, false);
    }

    /** A CRLF-terminated line without its ending, or null at end of stream. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
