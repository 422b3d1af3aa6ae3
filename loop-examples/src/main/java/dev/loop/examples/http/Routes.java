package dev.loop.examples.http;

import dev.loop.examples.io.OutputBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What the server answers: {@code GET /plaintext} and {@code GET /json} as TechEmpower defines
 * them, {@code POST /echo} (the request body back), and files from the served directory. Not
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

    private static final byte[] PLAINTEXT_PATH = Responses.ascii("/plaintext");
    private static final byte[] JSON_PATH = Responses.ascii("/json");
    private static final byte[] ECHO_PATH = Responses.ascii("/echo");
    private static final byte[] OCTET_STREAM = Responses.ascii("application/octet-stream");

    private final HttpConnection owner;
    private final HttpLoopState shared;
    private int route;
    private String filePath;

    Routes(HttpConnection owner, HttpLoopState shared) {
        this.owner = owner;
        this.shared = shared;
    }

    /** Picks the route of the request whose target is {@code b[req.targetStart, req.targetEnd)}. */
    void route(byte[] b, HttpRequest req) {
        int end = HttpParser.indexOf(b, req.targetStart, req.targetEnd, '?');
        if (end < 0) {
            end = req.targetEnd;
        }
        int start = req.targetStart;
        filePath = null;
        if (is(b, start, end, PLAINTEXT_PATH)) {
            route = PLAINTEXT;
        } else if (is(b, start, end, JSON_PATH)) {
            route = JSON;
        } else if (is(b, start, end, ECHO_PATH)) {
            route = ECHO;
        } else if (shared.files != null && b[start] == '/') {
            route = FILE;
            filePath = new String(b, start, end - start, StandardCharsets.ISO_8859_1); // the parser let only ASCII through
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
                if (!getOrHead) {
                    Responses.text(out, date, 405, Responses.ALLOW_GET, "use GET or HEAD", withBody, connection);
                } else if (shared.files.offload()) {
                    offloadFile(out, withBody, connection);
                    return;
                } else if (fileOnLoop(out, withBody, connection)) {
                    return;
                }
            }
            default -> Responses.text(out, date, 404, null, "no such resource", withBody, connection);
        }
        owner.responseDone();
    }

    /**
     * Opens and reads the file on the loop: a small one straight into {@code out}; a large one is
     * streamed after everything before it was written. True if the response continues later.
     */
    private boolean fileOnLoop(OutputBuffer out, boolean withBody, int connection) {
        StaticFiles.Opened f;
        try {
            f = shared.files.open(filePath, false);
        } catch (HttpError e) {
            Responses.text(out, shared.date, e.status, null, e.getMessage(), withBody, connection);
            return false;
        } catch (IOException e) {
            Responses.text(out, shared.date, 500, null, "cannot read the file", withBody, connection);
            return false;
        }
        int mark = out.size();
        Responses.head(out, shared.date, 200, null, f.type(), f.size(), connection);
        if (!withBody) {
            f.close();
            return false;
        }
        if (f.size() <= StaticFiles.SMALL_FILE) {
            try {
                int n = (int) f.size();
                ByteBuffer room = out.room(n);
                int base = room.position();
                while (room.hasRemaining()) {
                    if (f.channel().read(room, room.position() - base) < 0) {
                        throw new IOException("file shrank while being read");
                    }
                }
                out.advance(n);
            } catch (IOException e) {
                out.truncate(mark);
                Responses.text(out, shared.date, 500, null, "cannot read the file", withBody, connection);
            } finally {
                f.close();
            }
            return false;
        }
        stream(out, f, false);
        return true;
    }

    /** Opens (and reads, when small) the file on a virtual thread; answers when that is done. */
    private void offloadFile(OutputBuffer out, boolean withBody, int connection) {
        owner.flush(out); // the answers before this one go first
        owner.responsePending();
        String path = filePath;
        shared.loop.offload(() -> shared.files.open(path, withBody)).onDone(result -> {
            OutputBuffer o = shared.out;
            if (!owner.connection().isOpen()) {
                if (result.isSuccess()) {
                    result.result().close();
                }
                return;
            }
            if (!result.isSuccess()) {
                Throwable e = result.exception();
                int status = e instanceof HttpError h ? h.status : 500;
                Responses.text(o, shared.date, status, null, e instanceof HttpError ? e.getMessage()
                        : "cannot read the file", withBody, connection);
                owner.responseDone();
                return;
            }
            StaticFiles.Opened f = result.result();
            Responses.head(o, shared.date, 200, null, f.type(), f.size(), connection);
            if (!withBody) {
                f.close();
            } else if (f.contents() != null) {
                o.put(f.contents());
            } else {
                stream(o, f, true);
                return;
            }
            owner.responseDone();
        });
    }

    private void stream(OutputBuffer out, StaticFiles.Opened f, boolean offload) {
        owner.flush(out); // the head, and any answers before it, go before the file's bytes
        owner.responsePending();
        new FileStream(owner.connection(), f, offload, shared.chunk(), owner::responseDone, owner::touch,
                owner::responseFailed).start();
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
