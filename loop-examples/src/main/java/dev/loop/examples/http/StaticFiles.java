package dev.loop.examples.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Files served from one directory. Thread-safe (immutable): {@link #open} may run on the loop or,
 * with {@code offload}, on the virtual thread of {@link dev.loop.Loop#offload}.
 *
 * <p>Nothing outside the directory is served: the path is percent-decoded first, then any
 * {@code ..} segment is refused (403) before the file system is asked anything, and a file found
 * is served only if its real path (symbolic links followed) is still inside the directory.
 */
final class StaticFiles {
    /** Files (or ranges of them) up to this size are read whole into the response; larger ones are streamed. */
    static final int SMALL_FILE = 64 * 1024;

    private static final byte[] OCTET_STREAM = Responses.ascii("application/octet-stream");
    private static final Map<String, byte[]> TYPES = types(Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"), Map.entry("htm", "text/html; charset=utf-8"),
            Map.entry("txt", "text/plain; charset=utf-8"), Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("js", "text/javascript; charset=utf-8"), Map.entry("json", "application/json"),
            Map.entry("svg", "image/svg+xml"), Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"), Map.entry("gif", "image/gif"), Map.entry("ico", "image/x-icon"),
            Map.entry("wasm", "application/wasm"), Map.entry("pdf", "application/pdf")));

    private static Map<String, byte[]> types(Map<String, String> names) {
        Map<String, byte[]> m = new java.util.HashMap<>();
        names.forEach((ext, type) -> m.put(ext, Responses.ascii(type)));
        return Map.copyOf(m);
    }

    private final Path root;
    private final boolean offload;

    /**
     * @param dir     the directory to serve
     * @param offload read files on virtual threads rather than on the loop
     * @throws IOException naming {@code dir} when it is not a readable directory
     */
    StaticFiles(Path dir, boolean offload) throws IOException {
        Path real;
        try {
            real = dir.toRealPath();
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(dir.toString(), null, "the directory to serve does not exist");
        }
        if (!Files.isDirectory(real)) {
            throw new IOException("not a directory, cannot serve files from it: " + dir);
        }
        this.root = real;
        this.offload = offload;
    }

    boolean offload() {
        return offload;
    }

    /**
     * A file opened for sending.
     *
     * @param size       its length when opened: what is sent, whatever the file becomes meanwhile
     * @param mtimeNanos its modification time, nanoseconds since the epoch: with the size, its validators
     */
    record Opened(FileChannel channel, long size, long mtimeNanos, byte[] type) {
        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing was written through it: closing a read-only channel loses nothing
            }
        }

        /** Reads {@code length} bytes from {@code first} whole, then closes. Blocks on the file system. */
        byte[] readAndClose(long first, int length) throws IOException {
            try {
                byte[] contents = new byte[length];
                ByteBuffer b = ByteBuffer.wrap(contents);
                while (b.hasRemaining()) {
                    if (channel.read(b, first + b.position()) < 0) {
                        throw new IOException("file shrank while being read");
                    }
                }
                return contents;
            } finally {
                close();
            }
        }
    }

    /**
     * Opens the file that {@code rawPath} (the request target's path, still percent-encoded) names.
     * Blocks on the file system.
     *
     * @throws HttpError 400 for a malformed path, 403 for one that leaves the directory or cannot
     *                   be read, 404 when there is no such file
     */
    Opened open(String rawPath) throws HttpError, IOException {
        Path file = resolve(rawPath);
        FileChannel ch;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new HttpError(404, "no such file");
        } catch (AccessDeniedException e) {
            throw new HttpError(403, "file not readable");
        }
        try {
            // the time is the path's, read after the open: a file replaced between the two is
            // sent as opened under a newer time, which a cache revalidates, never the reverse
            long mtime = Files.getLastModifiedTime(file).to(TimeUnit.NANOSECONDS);
            return new Opened(ch, ch.size(), mtime, type(file));
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** The regular file under the root that {@code rawPath} names. */
    Path resolve(String rawPath) throws HttpError, IOException {
        String path = decode(rawPath);
        Path p = root;
        for (String segment : path.split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                throw new HttpError(403, "path leaves the served directory");
            }
            p = p.resolve(segment);
        }
        if (!p.normalize().startsWith(root)) {
            throw new HttpError(403, "path leaves the served directory");
        }
        if (Files.isDirectory(p)) {
            p = p.resolve("index.html");
        }
        if (!Files.isRegularFile(p)) {
            throw new HttpError(404, "no such file");
        }
        if (!p.toRealPath().startsWith(root)) {
            throw new HttpError(403, "link leads out of the served directory");
        }
        return p;
    }

    /** Percent-decodes {@code raw} as UTF-8; control characters, {@code %00} among them, are refused. */
    static String decode(String raw) throws HttpError {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length() || Character.digit(raw.charAt(i + 1), 16) < 0
                        || Character.digit(raw.charAt(i + 2), 16) < 0) {
                    throw new HttpError(400, "malformed percent-encoding in the path");
                }
                bytes.write(Character.digit(raw.charAt(i + 1), 16) * 16 + Character.digit(raw.charAt(i + 2), 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new HttpError(400, "path is not UTF-8");
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < 0x20 || s.charAt(i) == 0x7f) {
                throw new HttpError(400, "control character in the path");
            }
        }
        return s;
    }

    private static byte[] type(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        byte[] t = dot < 0 ? null : TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
        return t == null ? OCTET_STREAM : t;
    }

    @Override
    public String toString() {
        return "StaticFiles[" + root + (offload ? ", offloaded reads" : ", reads on the loop") + "]";
    }
}
