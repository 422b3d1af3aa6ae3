package dev.loop.net.stream;

import dev.loop.Loop;
import dev.loop.net.Unix;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;

/**
 * The file side of Unix domain socket servers, the same on every backend: the length limit, what
 * may stand at a path before binding, and removing the file afterwards. Not thread-safe: loop
 * thread only (or before the loop runs).
 */
public final class UnixPaths {
    /**
     * The longest socket path in bytes that every backend binds: {@code sun_path} holds 108 bytes
     * on Linux and 104 on BSD and macOS; the kernel and Netty take a path one byte short of that,
     * the JDK's channels ({@code select}) only a path two bytes short (a 107-byte path fails there
     * with "Unix domain path too long"). One limit for all backends, the JDK's, so that a path
     * works or fails the same whichever backend binds it.
     */
    public static final int MAX_PATH_BYTES = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
            ? 106 : 102;

    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private UnixPaths() {
    }

    /**
     * Refuses an empty path and one the platform cannot bind.
     *
     * @throws IllegalArgumentException naming the path, its length and the limit
     */
    public static void checkLength(UnixDomainSocketAddress address) {
        String path = address.getPath().toString();
        if (path.isEmpty()) {
            throw new IllegalArgumentException("a Unix domain socket path must not be empty");
        }
        int bytes = path.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_PATH_BYTES) {
            throw new IllegalArgumentException("Unix domain socket path of " + bytes + " bytes is longer than the "
                    + MAX_PATH_BYTES + " bytes this platform allows: " + path
                    + " (use a shorter path, or a relative one from a nearby working directory)");
        }
    }

    /**
     * Makes sure nothing stands at {@code path} before it is bound: a path that exists is refused
     * unless it is a socket file nothing listens on and {@code stale} says to replace it.
     *
     * @throws BindException naming the path when it exists and is not a socket, when a server
     *                       listens there, or when it is a stale socket file not to be replaced
     */
    public static void prepare(Path path, Unix.Stale stale) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException free) {
            return;
        }
        if (!isSocket(path, attributes)) {
            throw new BindException("the path exists and is not a socket, so it is left alone: " + path);
        }
        if (listening(path)) {
            throw new BindException("a server listens on this socket already: " + path);
        }
        if (stale != Unix.Stale.REPLACE) {
            throw new BindException("a stale socket file (nothing listens on it; a server that crashed may have left"
                    + " it) is in the way: " + path + "; listen with Unix.Stale.REPLACE to replace it");
        }
        Files.deleteIfExists(path);
    }

    private static boolean isSocket(Path path, BasicFileAttributes attributes) throws IOException {
        if (!attributes.isOther()) {
            return false; // a file, a directory or a symbolic link
        }
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & S_IFMT) == S_IFSOCK;
        } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
            return true; // no way to tell a socket from a device or a pipe here: take "other" for one
        }
    }

    /**
     * Whether a server accepts on the socket at {@code path}: a non-blocking connect is refused at
     * once when nothing listens, and succeeds or waits (a full backlog) when something does.
     */
    private static boolean listening(Path path) throws IOException {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.configureBlocking(false);
            probe.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }

    /** What identifies the file bound at {@code path} (device and inode), or null if unknown. */
    public static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Removes the socket file at {@code path} if it is still the one this server bound (another
     * server may have replaced it since): asyncio's {@code cleanup_socket}. A failure goes to the
     * loop's exception handler.
     */
    public static void removeIfOurs(Loop loop, Path path, Object key) {
        try {
            BasicFileAttributes now = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (key == null ? isSocket(path, now) : key.equals(now.fileKey())) {
                Files.delete(path);
            }
        } catch (NoSuchFileException gone) {
            // removed by someone else already
        } catch (IOException e) {
            loop.callExceptionHandler("removing the socket file " + path + " failed", e, path);
        }
    }
}
