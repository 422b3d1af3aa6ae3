package dev.loop.spi;

import java.io.IOException;

/**
 * A listening stream socket: TCP, or a Unix domain socket. Not thread-safe: loop thread only.
 * {@link IoReady#READ} means a connection can be accepted.
 */
public interface IoServerSocket extends IoHandle {

    /**
     * Accepts one pending connection without blocking.
     *
     * @return the new socket, non-blocking, with no {@link IoReady} attached yet (see
     *         {@link IoSocket#attach}), or {@code null} when none is pending
     * @throws IOException if accepting failed (for example, out of file descriptors); the server
     *                     socket stays usable
     */
    IoSocket accept() throws IOException;
}
