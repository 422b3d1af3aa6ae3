package dev.loop.net;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.net.stream.Dial;
import dev.loop.net.stream.StreamConnection;
import dev.loop.net.stream.TcpServer;
import dev.loop.net.stream.UnixPaths;
import dev.loop.net.transport.Addresses;
import dev.loop.net.transport.NetEntry;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.UnixIo;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Unix domain stream sockets on a loop (asyncio's {@code create_unix_server} and
 * {@code open_unix_connection}): the same {@link Server} and {@link Connection} as TCP, on a file
 * system path ({@link UnixDomainSocketAddress}) or a Linux abstract name
 * ({@link LinuxAbstractAddress}).
 *
 * <p>A server's socket file is removed when the server closes (or its loop does), if it is still
 * the file the server bound. A path that exists is refused: a stale socket file left by a server
 * that crashed is replaced only when asked ({@link Stale#REPLACE}), a live server's never, and
 * anything that is not a socket never.
 *
 * <p>Call these on the loop thread, or on any thread while the loop is not running. A connection's
 * {@link Connection#localSocketAddress()} and {@link Connection#remoteSocketAddress()} give the
 * Unix addresses (a client's own is unnamed: an empty path); {@link Connection#localAddress()}
 * and {@link Connection#remoteAddress()}, which are IP addresses, throw.
 */
public final class Unix {
    /** What {@link #listen} does about a socket file nothing listens on any more. */
    public enum Stale {
        /** Refuse it with a {@link java.net.BindException} naming the path. */
        FAIL,
        /** Remove it and listen there (a live server's socket, and anything else, stays refused). */
        REPLACE
    }

    /**
     * The longest path, in bytes of UTF-8, a socket can be bound to on this platform by every
     * backend (106 on Linux, 102 on BSD and macOS: the JDK's limit, one byte below the kernel's); a
     * longer one is refused with an {@link IllegalArgumentException} naming it.
     */
    public static final int MAX_PATH_BYTES = UnixPaths.MAX_PATH_BYTES;

    private Unix() {
    }

    /** Listens on {@code address} with default options. */
    public static Server listen(Loop loop, SocketAddress address, Consumer<Connection> onAccept) throws IOException {
        return listen(loop, address, ServerOptions.defaults(), Stale.FAIL, onAccept);
    }

    /** Listens on {@code address}, refusing a stale socket file. */
    public static Server listen(Loop loop, SocketAddress address, ServerOptions options, Consumer<Connection> onAccept)
            throws IOException {
        return listen(loop, address, options, Stale.FAIL, onAccept);
    }

    /**
     * Listens on {@code address}; each accepted connection is handed to {@code onAccept} in the
     * loop's callback phase. Of the options, the backlog, the accept limit and the accepted
     * connections' options count; the TCP ones (reuse address and port, no-delay, keep-alive) do
     * not apply.
     *
     * @param address a {@link UnixDomainSocketAddress} or a {@link LinuxAbstractAddress}
     * @param stale   what to do with a socket file nothing listens on
     * @throws java.net.BindException naming the path when it exists (see {@link Stale}) or cannot
     *                                be bound
     * @throws IllegalArgumentException for another kind of address, or a path longer than
     *                                  {@link #MAX_PATH_BYTES}
     * @throws UnsupportedOperationException naming the backend when it has no Unix domain sockets
     *                                       or no abstract names
     */
    public static Server listen(Loop loop, SocketAddress address, ServerOptions options, Stale stale,
                                Consumer<Connection> onAccept) throws IOException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(stale, "stale");
        Objects.requireNonNull(onAccept, "onAccept");
        NetRegistry net = NetEntry.registry(loop);
        UnixIo io = NetEntry.unix(net);
        Map<SocketOption<?>, Object> listenerOptions = new LinkedHashMap<>();
        if (options.accepted().receiveBufferSize() > 0) {
            // set on the listener, so that accepted sockets inherit it
            listenerOptions.put(StandardSocketOptions.SO_RCVBUF, options.accepted().receiveBufferSize());
        }
        Map<SocketOption<?>, Object> acceptedOptions = new LinkedHashMap<>();
        if (options.accepted().sendBufferSize() > 0) {
            acceptedOptions.put(StandardSocketOptions.SO_SNDBUF, options.accepted().sendBufferSize());
        }
        TcpServer server = new TcpServer(net, options, acceptedOptions, onAccept);
        IoServerSocket socket;
        try {
            if (address instanceof UnixDomainSocketAddress path) {
                UnixPaths.checkLength(path);
                Path p = path.getPath();
                UnixPaths.prepare(p, stale);
                socket = io.listen(path, options.backlog(), listenerOptions, server);
                Object file = UnixPaths.fileKey(p);
                server.unix(path, () -> UnixPaths.removeIfOurs(loop, p, file));
            } else if (address instanceof LinuxAbstractAddress name) {
                socket = io.listenAbstract(name.name(), options.backlog(), listenerOptions, server);
                server.unix(name, null);
            } else {
                throw notUnix(address);
            }
        } catch (UnsupportedOperationException e) {
            throw NetEntry.unsupported(net, e);
        }
        server.bound(socket);
        return server;
    }

    /** Connects to {@code address} with default options. */
    public static LoopFuture<Connection> connect(Loop loop, SocketAddress address) {
        return connect(loop, address, ConnectionOptions.defaults());
    }

    /**
     * Connects to the server at {@code address}. Never blocks: a path nothing listens on fails the
     * future with a {@link java.net.ConnectException} naming it. Of the options, the buffer sizes,
     * watermarks and timeouts count; the TCP ones do not apply.
     *
     * @throws IllegalArgumentException for another kind of address, or a path longer than
     *                                  {@link #MAX_PATH_BYTES}
     * @throws UnsupportedOperationException naming the backend when it has no Unix domain sockets
     *                                       or no abstract names
     */
    public static LoopFuture<Connection> connect(Loop loop, SocketAddress address, ConnectionOptions options) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        NetRegistry net = NetEntry.registry(loop);
        UnixIo io = NetEntry.unix(net);
        Map<SocketOption<?>, Object> kernel = new LinkedHashMap<>();
        if (options.sendBufferSize() > 0) {
            kernel.put(StandardSocketOptions.SO_SNDBUF, options.sendBufferSize());
        }
        if (options.receiveBufferSize() > 0) {
            kernel.put(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
        }
        Dial dial;
        if (address instanceof UnixDomainSocketAddress path) {
            UnixPaths.checkLength(path);
            dial = ready -> io.connect(path, kernel, ready);
        } else if (address instanceof LinuxAbstractAddress name) {
            dial = ready -> io.connectAbstract(name.name(), kernel, ready);
        } else {
            throw notUnix(address);
        }
        try {
            // the connection keeps both names: a backend cannot report a Linux abstract one
            return new StreamConnection(net, options, null, Addresses.UNNAMED_UNIX, address).connectThrough(dial, null);
        } catch (UnsupportedOperationException e) {
            throw NetEntry.unsupported(net, e);
        }
    }

    private static IllegalArgumentException notUnix(SocketAddress address) {
        return new IllegalArgumentException("not a Unix domain socket address (a UnixDomainSocketAddress or a"
                + " LinuxAbstractAddress): " + address + " (" + address.getClass().getName() + ")");
    }
}
