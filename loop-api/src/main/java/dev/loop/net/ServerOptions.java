package dev.loop.net;

import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Options of a listening socket and of the connections it accepts. Immutable; each
 * {@code with...} returns a copy.
 *
 * @param backlog             the kernel's accept queue length; 0 for the backend's default
 * @param reuseAddress        SO_REUSEADDR (default true, so a restarted server can bind at once)
 * @param reusePort           SO_REUSEPORT: several sockets, in one process or several, share the
 *                            port; a backend or platform without it fails {@link Net#listen} with
 *                            an {@link UnsupportedOperationException}
 * @param maxAcceptsPerWakeup connections accepted per readiness event at most: a storm of
 *                            connects cannot starve other work of the loop, and the rest are
 *                            accepted in later iterations (readiness is level-triggered)
 * @param accepted            options of each accepted connection
 */
public record ServerOptions(int backlog, boolean reuseAddress, boolean reusePort, int maxAcceptsPerWakeup,
                            ConnectionOptions accepted) {

    public static final int DEFAULT_BACKLOG = 1024;
    public static final int DEFAULT_MAX_ACCEPTS_PER_WAKEUP = 64;

    public ServerOptions {
        Objects.requireNonNull(accepted, "accepted");
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must not be negative: " + backlog);
        }
        if (maxAcceptsPerWakeup < 1) {
            throw new IllegalArgumentException("maxAcceptsPerWakeup must be at least 1: " + maxAcceptsPerWakeup);
        }
    }

    /** Backlog 1024, SO_REUSEADDR on, no SO_REUSEPORT, 64 accepts per wakeup, default connections. */
    public static ServerOptions defaults() {
        return new ServerOptions(DEFAULT_BACKLOG, true, false, DEFAULT_MAX_ACCEPTS_PER_WAKEUP, ConnectionOptions.defaults());
    }

    public ServerOptions withBacklog(int n) {
        return new ServerOptions(n, reuseAddress, reusePort, maxAcceptsPerWakeup, accepted);
    }

    public ServerOptions withReuseAddress(boolean on) {
        return new ServerOptions(backlog, on, reusePort, maxAcceptsPerWakeup, accepted);
    }

    public ServerOptions withReusePort(boolean on) {
        return new ServerOptions(backlog, reuseAddress, on, maxAcceptsPerWakeup, accepted);
    }

    public ServerOptions withMaxAcceptsPerWakeup(int n) {
        return new ServerOptions(backlog, reuseAddress, reusePort, n, accepted);
    }

    public ServerOptions withAccepted(ConnectionOptions o) {
        return new ServerOptions(backlog, reuseAddress, reusePort, maxAcceptsPerWakeup, o);
    }

    /** The listening socket's kernel options, as the backend SPI takes them. */
    public Map<SocketOption<?>, Object> kernelOptions() {
        Map<SocketOption<?>, Object> m = new LinkedHashMap<>();
        m.put(StandardSocketOptions.SO_REUSEADDR, reuseAddress);
        if (reusePort) {
            m.put(StandardSocketOptions.SO_REUSEPORT, true);
        }
        if (accepted.receiveBufferSize() > 0) {
            // set on the listener so accepted sockets inherit it before the handshake sizes the window
            m.put(StandardSocketOptions.SO_RCVBUF, accepted.receiveBufferSize());
        }
        return m;
    }
}
