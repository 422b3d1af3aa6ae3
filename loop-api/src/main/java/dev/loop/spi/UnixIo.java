package dev.loop.spi;

import java.io.IOException;
import java.net.SocketOption;
import java.net.UnixDomainSocketAddress;
import java.util.Map;

/**
 * The Unix domain stream sockets of a backend, offered through {@link NetIo#unix()}. Not
 * thread-safe: loop thread only, or any thread while the loop is not running.
 *
 * <p>The sockets are the same {@link IoServerSocket} and {@link IoSocket} as TCP's, so the
 * connection code above is shared whole. What is Unix-specific and the same on every backend
 * (refusing a path that exists, replacing a stale socket file on request, removing the file on
 * close, the path length limit) lives in {@code loop-api}; a backend only opens, binds and
 * connects. Options are {@code SO_SNDBUF} and {@code SO_RCVBUF} only.
 *
 * <p>Methods a backend cannot offer throw {@link UnsupportedOperationException} with a message
 * that says why; {@code loop-api} adds the backend's name.
 */
public interface UnixIo {

    /**
     * Binds a listening socket to the file system path {@code path}, which the caller made sure does
     * not exist.
     *
     * @throws java.net.BindException naming the path when it cannot be bound
     */
    IoServerSocket listen(UnixDomainSocketAddress path, int backlog, Map<SocketOption<?>, Object> options,
                          IoReady ready) throws IOException;

    /**
     * Connects to the socket at {@code path}. A Unix domain connect completes at once or fails at
     * once, but callers still finish it through {@link IoSocket#finishConnect()}.
     *
     * @throws java.net.ConnectException when nothing listens there (refused, or no such file)
     */
    IoSocket connect(UnixDomainSocketAddress path, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException;

    /**
     * Listens on the Linux abstract socket name {@code name} (no file: the name disappears with
     * the socket).
     *
     * @throws UnsupportedOperationException where the backend cannot name abstract sockets
     */
    default IoServerSocket listenAbstract(String name, int backlog, Map<SocketOption<?>, Object> options,
                                          IoReady ready) throws IOException {
        throw new UnsupportedOperationException("no Linux abstract socket names");
    }

    /**
     * Connects to the Linux abstract socket name {@code name}.
     *
     * @throws UnsupportedOperationException where the backend cannot name abstract sockets
     */
    default IoSocket connectAbstract(String name, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        throw new UnsupportedOperationException("no Linux abstract socket names");
    }

    /**
     * A peer's process id, user id and group id, as {@link IoSocket#peerCredentials()} reads them.
     *
     * @param pid the process id
     * @param uid the effective user id
     * @param gid the effective group id
     */
    record IoPeerCredentials(long pid, long uid, long gid) {
    }
}
