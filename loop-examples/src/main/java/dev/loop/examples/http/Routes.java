package dev.loop.examples.http;

import dev.loop.examples.io.OutputBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What the server answers: {@code GET /plaintext} and {@code GET /json} as TechEmpower defines
 * them, {@code POST /echo} (the request body back), files from the served directory (conditional
 * and ranged as {@link FileResponse} decides), {@code OPTIONS *}, and a 405 to CONNECT. Not
 * thread-safe: one per connection.
 *
 * <p>The route is picked from the target's bytes while the head is still in the input buffer, so
 * the hot routes never turn the path into a {@code String}.
 */
final class Routes {
    private static final int PLAINTEXT = 1;
    private static final int JSON = 2;
    private static final int ECHO = 3;
    private static final int FILE = 4;
    private static final int NOT_FOUND = 5;
    private static final int SERVER_OPTIONS = 6;
    private static final int PROXY = 7;
    private static final int METRICS = 8;

    private static final byte[] PLAINTEXT_PATH = Responses.ascii("/plaintext");
    private static final byte[] JSON_PATH = Responses.ascii("/json");
    private static final byte[] ECHO_PATH = Responses.ascii("/echo");
    private static final byte[] METRICS_PATH = Responses.ascii("/metrics");
    private static final byte[] PROMETHEUS_TEXT = Responses.ascii("text/plain; version=0.0.4; charset=utf-8");
    private static final byte[] OCTET_STREAM = Responses.ascii("application/octet-stream");

    private final HttpConnection owner;
    private final HttpLoopState shared;
    private int route;
    private String filePath;
    private FileResponse.Conditions conditions;

    Routes(HttpConnection owner, HttpLoopState shared) {
        this.owner = owner;
        this.shared = shared;
    }

    /**
     * Picks the route of the request whose path is {@code b[req.pathStart, req.pathEnd)}, while
     * its head is still in {@code b}.
     */
    void route(byte[] b, HttpRequest req) {
        filePath = null;
        conditions = null;
        if (req.targetForm == HttpRequest.ASTERISK_FORM) {
            route = SERVER_OPTIONS;
            return;
        }
        if (req.targetForm == HttpRequest.AUTHORITY_FORM) {
            route = PROXY;
            return;
        }
        int start = req.pathStart;
        int end = HttpParser.indexOf(b, start, req.pathEnd, '?');
        if (end < 0) {
            end = req.pathEnd;
        }
        if (is(b, start, end, PLAINTEXT_PATH)) {
            route = PLAINTEXT;
        } else if (is(b, start, end, JSON_PATH)) {
            route = JSON;
        } else if (is(b, start, end, ECHO_PATH)) {
            route = ECHO;
        } else if (shared.metrics != null && is(b, start, end, METRICS_PATH)) {
            route = METRICS;
        } else if (shared.files != null) {
            route = FILE;
            // an absolute-form target may have no path at all (http://host): that is "/" (RFC 9110, 4.2.3)
            filePath = start == end ? "/" : new String(b, start, end - start, StandardCharsets.ISO_8859_1);
            conditions = FileResponse.Conditions.of(b, req);
        } else {
            route = NOT_FOUND;
        }
    }

    /** Whether the route reads the body (the others have it skipped). */
    boolean wantsBody() {
        return route == ECHO;
    }

    /**
     * Answers the request into {@code out}, then tells the connection {@code responseDone()}, or
     * {@code responsePending()} and later {@code responseDone()} when the answer takes longer.
     */
    void respond(OutputBuffer out, HttpRequest req, OutputBuffer body) {
        boolean getOrHead = req.method == HttpRequest.GET || req.method == HttpRequest.HEAD;
        boolean withBody = req.method != HttpRequest.HEAD;
        int connection = !req.keepAlive ? -1 : req.version == 10 ? 1 : 0;
        HttpDate date = shared.date;
        switch (route) {
            case PLAINTEXT, JSON -> {
                if (!getOrHead) {
                    Responses.text(out, date, 405, Responses.ALLOW_GET, "use GET or HEAD", withBody, connection);
                } else if (route == PLAINTEXT) {
                    Responses.plaintext(out, date, withBody, connection);
                } else {
                    Responses.json(out, shared.scratch, date, withBody, connection);
                }
            }
            case METRICS -> {
                if (!getOrHead) {
                    Responses.text(out, date, 405, Responses.ALLOW_GET, "use GET or HEAD", withBody, connection);
                } else {
                    byte[] text = shared.metrics.get().getBytes(StandardCharsets.UTF_8); // a scrape: allocation is fine
                    Responses.head(out, date, 200, null, PROMETHEUS_TEXT, text.length, connection);
                    if (withBody) {
                        out.put(text);
                    }
                }
            }
            case ECHO -> {
                if (req.method != HttpRequest.POST) {
                    Responses.text(out, date, 405, Responses.ALLOW_POST, "use POST", withBody, connection);
                } else if (body == null) {
                    // neither Content-Length nor chunked, or Content-Length: 0: an empty body (RFC 9112, 6.3)
                    Responses.head(out, date, 200, null, OCTET_STREAM, 0, connection);
                } else {
                    Responses.head(out, date, 200, null, OCTET_STREAM, body.size(), connection);
                    out.put(body);
                }
            }
            case FILE -> {
                boolean get = req.method == HttpRequest.GET;
                if (!getOrHead) {
                    Responses.text(out, date, 405, Responses.ALLOW_GET, "use GET or HEAD", withBody, connection);
                } else if (shared.files.offload()) {
                    offloadFile(out, get, connection);
                    return;
                } else if (fileOnLoop(out, get, connection)) {
                    return;
                }
            }
            case SERVER_OPTIONS -> Responses.head(out, date, 200, Responses.ALLOW_ALL, Responses.TEXT_UTF8, 0, connection);
            case PROXY -> Responses.text(out, date, 405, Responses.ALLOW_ALL, "CONNECT is not supported: this server"
                    + " is not a proxy", withBody, connection);
            default -> Responses.text(out, date, 404, null, "no such resource", withBody, connection);
        }
        owner.responseDone();
    }

    /**
     * Opens and reads the file on the loop: a small one (or a small range of one) straight into
     * {@code out}; a large one is streamed after everything before it was written. True if the
     * response continues later.
     */
    private boolean fileOnLoop(OutputBuffer out, boolean get, int connection) {
        StaticFiles.Opened f;
        try {
            f = shared.files.open(filePath);
        } catch (HttpError e) {
            Responses.text(out, shared.date, e.status, null, e.getMessage(), get, connection);
            return false;
        } catch (IOException e) {
            Responses.text(out, shared.date, 500, null, "cannot read the file", get, connection);
            return false;
        }
        FileResponse.Selection s = FileResponse.select(conditions, get, f.size(), f.mtimeNanos(),
                System.currentTimeMillis());
        int mark = out.size();
        FileResponse.head(out, shared.date, s, f.type(), get, connection);
        if (!get || !s.sendsFile()) {
            f.close();
            return false;
        }
        if (s.length() <= StaticFiles.SMALL_FILE) {
            try {
                int n = (int) s.length();
                ByteBuffer room = out.room(n);
                int base = room.position();
                while (room.hasRemaining()) {
                    if (f.channel().read(room, s.first() + room.position() - base) < 0) {
                        throw new IOException("file shrank while being read");
                    }
                }
                out.advance(n);
            } catch (IOException e) {
                out.truncate(mark);
                Responses.text(out, shared.date, 500, null, "cannot read the file", get, connection);
            } finally {
                f.close();
            }
            return false;
        }
        stream(out, f, s, false);
        return true;
    }

    /** What an offloaded open found: the file, what to answer, and the bytes when they were read at once. */
    private record Prepared(StaticFiles.Opened file, FileResponse.Selection selection, byte[] contents) {
    }

    /**
     * Opens the file on a virtual thread, decides the answer there and reads the bytes when they
     * are few; answers on the loop when that is done.
     */
    private void offloadFile(OutputBuffer out, boolean get, int connection) {
        owner.flush(out); // the answers before this one go first
        owner.responsePending();
        String path = filePath;
        FileResponse.Conditions c = conditions;
        shared.loop.offload(() -> {
            StaticFiles.Opened f = shared.files.open(path);
            FileResponse.Selection s = FileResponse.select(c, get, f.size(), f.mtimeNanos(), System.currentTimeMillis());
            if (!get || !s.sendsFile()) {
                f.close();
                return new Prepared(f, s, null);
            }
            if (s.length() <= StaticFiles.SMALL_FILE) {
                return new Prepared(f, s, f.readAndClose(s.first(), (int) s.length()));
            }
            return new Prepared(f, s, null);
        }).onDone(result -> {
            OutputBuffer o = shared.out;
            if (!owner.connection().isOpen()) {
                if (result.isSuccess()) {
                    result.result().file().close();
                }
                return;
            }
            if (!result.isSuccess()) {
                Throwable e = result.exception();
                int status = e instanceof HttpError h ? h.status : 500;
                Responses.text(o, shared.date, status, null, e instanceof HttpError ? e.getMessage()
                        : "cannot read the file", get, connection);
                owner.responseDone();
                return;
            }
            Prepared p = result.result();
            FileResponse.head(o, shared.date, p.selection(), p.file().type(), get, connection);
            if (p.contents() != null) {
                o.put(p.contents());
            } else if (get && p.selection().sendsFile()) {
                stream(o, p.file(), p.selection(), true);
                return;
            }
            owner.responseDone();
        });
    }

    private void stream(OutputBuffer out, StaticFiles.Opened f, FileResponse.Selection s, boolean offload) {
        owner.flush(out); // the head, and any answers before it, go before the file's bytes
        owner.responsePending();
        new FileStream(owner.connection(), f, s.first(), s.length(), offload, shared.chunk(), owner::responseDone,
                owner::touch, owner::responseFailed).start();
    }

    private static boolean is(byte[] b, int start, int end, byte[] path) {
        if (end - start != path.length) {
            return false;
        }
        for (int i = 0; i < path.length; i++) {
            if (b[start + i] != path[i]) {
                return false;
            }
        }
        return true;
    }
}
