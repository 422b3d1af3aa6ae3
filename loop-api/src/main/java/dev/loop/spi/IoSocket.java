package dev.loop.spi;

import java.io.IOException;
import java.net.SocketOption;

/**
 * A connected (or connecting) non-blocking stream socket, TCP or Unix domain. Not thread-safe: loop
 * thread only.
 *
 * <p>The backend does the raw system calls; everything above (buffering, futures, watermarks)
 * lives in {@code loop-api}. The byte pipe ({@link IoTransport}: reads, writes, readiness,
 * half-close) is all a stream connection holds, so a TLS layer can stand in for the socket; this
 * type adds what only a real socket has. Buffers may be heap or direct: a backend whose calls need
 * direct memory copies through its own.
 */
public interface IoSocket extends IoHandle, IoTransport {

    /**
     * Sets a socket option; backends support at least {@code TCP_NODELAY}, {@code SO_KEEPALIVE},
     * {@code SO_SNDBUF}, {@code SO_RCVBUF} and {@code SO_LINGER} from
     * {@link java.net.StandardSocketOptions}.
     *
     * @throws UnsupportedOperationException if this backend cannot set {@code option}
     */
    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    /**
     * The credentials of the process at the other end of this connected Unix domain socket
     * ({@code SO_PEERCRED}: as they were when it connected or listened). The socket answers for
     * itself, so nothing above has to know which backend made it.
     *
     * @throws UnsupportedOperationException where the backend cannot read them (saying why)
     */
    default UnixIo.IoPeerCredentials peerCredentials() throws IOException {
        throw new UnsupportedOperationException("cannot read peer credentials");
    }
}
