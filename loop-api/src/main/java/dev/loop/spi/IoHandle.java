package dev.loop.spi;

import java.net.SocketAddress;

/**
 * What every socket a backend opens has in common. Not thread-safe: loop thread only.
 *
 * <p>A handle reports readiness to its {@link IoReady} only for the directions asked for with
 * {@link #interest}; a new handle asks for none.
 */
public interface IoHandle {

    /**
     * Sets which readiness to report. Backends change their registration only when the pair differs
     * from the last one (one {@code epoll_ctl} or {@code interestOps} per change, none per call).
     * Ignored once closed.
     */
    void interest(boolean read, boolean write);

    /**
     * The address this socket is bound to: an {@link java.net.InetSocketAddress} for TCP and UDP,
     * a {@link java.net.UnixDomainSocketAddress} (or a backend's own type for a Linux abstract name)
     * for a Unix domain socket.
     */
    SocketAddress localAddress();

    /** Closes the socket and its registration; readiness is no longer reported. Idempotent. */
    void close();

    /**
     * Runs {@code released} on the loop thread once this closed handle's descriptor is gone and its
     * address (a UDP port, a listening name) is free for another socket. A readiness backend closes
     * at once, so this runs now (the default); a completion backend may first have to see the
     * operations it had in flight end (docs/adr/0011-completion-backends.md), which takes one more
     * poll, or the loop's close.
     */
    default void whenReleased(Runnable released) {
        released.run();
    }

    boolean isOpen();
}
