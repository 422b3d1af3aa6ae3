package dev.loop.examples;

import dev.loop.net.Connection;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.Promise;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * {@code http-get URL [--backend NAME]}: a non-blocking HTTP/1.0 GET that prints the status line and
 * the size of the body. Plain {@code http} only.
 */
public final class HttpGet {
    /** Longest status or header line accepted. */
    static final int MAX_HEADER_LINE = 8 * 1024;

    private HttpGet() {
    }

    /** The status line and the body's size in bytes. */
    public record Response(String statusLine, long bodySize) { }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        if (args.length == 0 || !args[0].startsWith("http://")) {
            err.println("usage: http-get http://HOST[:PORT]/PATH [--backend NAME]");
            return 2;
        }
        URI uri = URI.create(args[0]);
        String backend = Main.option(args, "--backend", "select");
        // the one blocking step, done before the loop runs: a DNS lookup
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(uri.getHost()),
                uri.getPort() < 0 ? 80 : uri.getPort());
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            Response r = loop.runUntilComplete(get(loop, address, uri));
            out.println(r.statusLine());
            out.println("body: " + r.bodySize() + " bytes");
        }
        return 0;
    }

    /** Sends the request and reads the response; the future fails with the first error. */
    public static LoopFuture<Response> get(Loop loop, InetSocketAddress address, URI uri) {
        Promise<Response> result = loop.newPromise();
        Net.connect(loop, address).onDone(cf -> {
            if (!cf.isSuccess()) {
                result.fail(cf.exception());
                return;
            }
            Connection c = cf.result();
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            if (uri.getRawQuery() != null) {
                path += "?" + uri.getRawQuery();
            }
            String request = "GET " + path + " HTTP/1.0\r\nHost: " + uri.getHost()
                    + "\r\nUser-Agent: loop-examples\r\nConnection: close\r\n\r\n";
            c.write(request.getBytes(StandardCharsets.ISO_8859_1));
            c.readLine(MAX_HEADER_LINE).onDone(status -> {
                if (!status.isSuccess() || status.result() == null) {
                    c.abort();
                    result.fail(status.isSuccess() ? new IOException("no response from " + address) : status.exception());
                    return;
                }
                skipHeaders(c, status.result(), result);
            });
        });
        return result;
    }

    private static void skipHeaders(Connection c, String statusLine, Promise<Response> result) {
        c.readLine(MAX_HEADER_LINE).onDone(h -> {
            if (!h.isSuccess()) {
                c.abort();
                result.fail(h.exception());
            } else if (h.result() == null || h.result().isEmpty()) {
                countBody(c, statusLine, ByteBuffer.allocate(16 * 1024), 0, result);
            } else {
                skipHeaders(c, statusLine, result);
            }
        });
    }

    private static void countBody(Connection c, String statusLine, ByteBuffer buf, long size, Promise<Response> result) {
        buf.clear();
        c.read(buf).onDone(r -> {
            if (!r.isSuccess()) {
                c.abort();
                result.fail(r.exception());
            } else if (r.result() < 0) {
                c.close();
                result.complete(new Response(statusLine, size));
            } else {
                countBody(c, statusLine, buf, size + r.result(), result);
            }
        });
    }
}
