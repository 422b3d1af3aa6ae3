package dev.loop.net;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopGroup;
import dev.loop.Promise;
import dev.loop.net.names.HappyEyeballs;
import dev.loop.net.stream.GroupListen;
import dev.loop.net.stream.StreamConnection;
import dev.loop.net.stream.TcpServer;
import dev.loop.net.transport.Addresses;
import dev.loop.net.transport.NetRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * TCP on a loop: {@link #listen} and {@link #connect}, on whichever backend the loop runs; and
 * servers that accept on every loop of a {@link LoopGroup}.
 *
 * <p>Call these on the loop thread, or on any thread while the loop is not running (to set up a
 * server before {@link Loop#runForever()}). An {@link InetSocketAddress} must be resolved (a DNS
 * lookup would block the loop); to connect by host name, use
 * {@link #connect(Loop, String, int, ConnectionOptions)}, which looks the name up off the loop thread.
 */
public final class Net {
    private Net() {
    }

    /**
     * Listens on {@code address} with default options.
     *
     * @see #listen(Loop, InetSocketAddress, ServerOptions, Consumer)
     */
    public static Server listen(Loop loop, InetSocketAddress address, Consumer<Connection> onAccept) throws IOException {
        return listen(loop, address, ServerOptions.defaults(), onAccept);
    }

    /**
     * Listens on {@code address}; each accepted connection is handed to {@code onAccept} in the
     * loop's callback phase, which then reads it (pull style) or sets its handler (push style).
     *
     * @throws java.net.BindException naming the address when it is in use
     * @throws UnsupportedOperationException when an option (SO_REUSEPORT) is not supported by the
     *                                       backend on this platform, or the backend has no sockets
     */
    public static Server listen(Loop loop, InetSocketAddress address, ServerOptions options,
                                Consumer<Connection> onAccept) throws IOException {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(onAccept, "onAccept");
        NetRegistry net = registry(loop, address);
        TcpServer server = new TcpServer(net, options, onAccept);
        server.listen(address);
        return server;
    }

    /**
     * Listens on {@code address} for TLS: each connection reaches {@code onAccept} once its
     * handshake is done, so everything read and written is already plaintext. A handshake that
     * fails (a plaintext client, a certificate the client refused, the timeout) closes that
     * connection only and goes to the loop's exception handler, naming the peer.
     *
     * @param tls the server's keys and settings ({@link TlsContexts} makes a context from PEM or PKCS#12 files)
     * @see #listen(Loop, InetSocketAddress, ServerOptions, Consumer)
     */
    public static Server listen(Loop loop, InetSocketAddress address, ServerOptions options, TlsOptions tls,
                                Consumer<Connection> onAccept) throws IOException {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(onAccept, "onAccept");
        NetRegistry net = registry(loop, address);
        TcpServer server = new TcpServer(net, options, onAccept);
        server.tls(tls);
        server.listen(address);
        return server;
    }

    /**
     * Listens on {@code address} on behalf of every loop of {@code group} with
     * {@link AcceptMode#AUTO}.
     *
     * @see #listen(LoopGroup, InetSocketAddress, ServerOptions, AcceptMode, Consumer)
     */
    public static GroupServer listen(LoopGroup group, InetSocketAddress address, ServerOptions options,
                                     Consumer<Connection> onAccept) throws IOException {
        return listen(group, address, options, AcceptMode.AUTO, onAccept);
    }

    /**
     * Listens on {@code address} on behalf of every loop of {@code group}; each accepted
     * connection lives on one loop, and {@code onAccept} runs on that loop's thread. Blocks until
     * every loop is ready, so call it from a thread that is not one of the group's loops.
     *
     * @throws java.net.BindException naming the address when it is in use
     * @throws UnsupportedOperationException with {@link AcceptMode#REUSE_PORT} on a backend or
     *                                       platform without {@code SO_REUSEPORT}
     * @throws IllegalStateException         if the group is closed, or when called on one of its loops
     */
    public static GroupServer listen(LoopGroup group, InetSocketAddress address, ServerOptions options,
                                     AcceptMode mode, Consumer<Connection> onAccept) throws IOException {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(onAccept, "onAccept");
        return groupServer(group, GroupListen.listen(group, address, options, mode, null, onAccept));
    }

    /**
     * Listens for TLS on {@code address} on behalf of every loop of {@code group}
     * ({@link AcceptMode#AUTO}); each handshake runs on the loop that serves the connection.
     *
     * @see #listen(Loop, InetSocketAddress, ServerOptions, TlsOptions, Consumer)
     * @see #listen(LoopGroup, InetSocketAddress, ServerOptions, AcceptMode, Consumer)
     */
    public static GroupServer listen(LoopGroup group, InetSocketAddress address, ServerOptions options, TlsOptions tls,
                                     Consumer<Connection> onAccept) throws IOException {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(onAccept, "onAccept");
        return groupServer(group, GroupListen.listen(group, address, options, AcceptMode.AUTO, tls, onAccept));
    }

    /** Connects with default options. */
    public static LoopFuture<Connection> connect(Loop loop, InetSocketAddress address) {
        return connect(loop, address, ConnectionOptions.defaults());
    }

    /**
     * Connects to {@code address}. Never blocks: every failure arrives through the future, a refused
     * connect as a {@link java.net.ConnectException} naming the address, a connect slower than
     * {@link ConnectionOptions#connectTimeout()} as a {@link java.net.SocketTimeoutException}, an
     * unresolved address as a {@link java.net.UnknownHostException} naming the host (resolving it
     * would block the loop). Cancelling the future (or the task awaiting it) gives up the connect:
     * the socket is closed, whether or not it had connected meanwhile.
     *
     * @throws IllegalStateException if the loop is closed, or runs on another thread: misuse, not a
     *                               failure of the connect
     */
    public static LoopFuture<Connection> connect(Loop loop, InetSocketAddress address, ConnectionOptions options) {
        Objects.requireNonNull(options, "options");
        LoopFuture<Connection> unresolved = unresolved(loop, address);
        if (unresolved != null) {
            return unresolved;
        }
        NetRegistry net = registry(loop, address);
        return new StreamConnection(net, options, null, null, address).connect(null);
    }

    /**
     * Connects to {@code address} over TLS: the future completes once the handshake is done. Host
     * names are verified by default: the server's certificate must name
     * {@link TlsOptions#serverName()}, or the host of {@code address} ({@code new
     * InetSocketAddress("example.com", 443)} keeps the name it was resolved from). A failed
     * handshake fails the future with an {@link javax.net.ssl.SSLHandshakeException} that names the
     * address and what went wrong (an untrusted or expired certificate, the name that did not match,
     * the alert the server sent, the timeout).
     *
     * @param tls the client's trust and settings ({@link TlsOptions#client()}: what the JDK trusts)
     */
    public static LoopFuture<Connection> connect(Loop loop, InetSocketAddress address, ConnectionOptions options,
                                                 TlsOptions tls) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(tls, "tls");
        LoopFuture<Connection> unresolved = unresolved(loop, address);
        if (unresolved != null) {
            return unresolved;
        }
        NetRegistry net = registry(loop, address);
        return new StreamConnection(net, options, null, null, address).connect(tls);
    }

    /** Connects to {@code host} with default options: the system's resolver, Happy Eyeballs. */
    public static LoopFuture<Connection> connect(Loop loop, String host, int port) {
        return connect(loop, host, port, ConnectionOptions.defaults());
    }

    /**
     * Connects to {@code host} by name, without blocking the loop: {@link ConnectionOptions#resolver()}
     * looks it up (an IP literal such as {@code 127.0.0.1} or {@code ::1} is used as it is), then
     * Happy Eyeballs (RFC 8305) races the addresses: IPv6 and IPv4 alternating, IPv6 first, the next
     * attempt starting after {@link ConnectionOptions#attemptDelay()} (250 ms by default) or at once
     * when the one before it fails. The first to connect wins; the others are given up and their
     * sockets closed.
     *
     * <p>Failures arrive through the future: an {@link UnknownHostException} naming the host when
     * the lookup fails, finds nothing or times out; when every address fails, the first attempt's
     * failure (a {@link java.net.ConnectException} naming the host and address), with every other
     * attempt's as {@linkplain Throwable#getSuppressed() suppressed}; a
     * {@link java.net.SocketTimeoutException} naming the host when the whole (lookup included)
     * takes longer than {@link ConnectionOptions#connectTimeout()}. Cancelling the future cancels the
     * lookup and every attempt.
     *
     * @throws IllegalArgumentException if {@code port} is not 0 to 65535
     * @throws IllegalStateException    if the loop is closed, or runs on another thread
     */
    public static LoopFuture<Connection> connect(Loop loop, String host, int port, ConnectionOptions options) {
        checkConnect(loop, host, port, options);
        return HappyEyeballs.connect(loop, host, port, options, null);
    }

    /**
     * Connects to {@code host} by name as {@link #connect(Loop, String, int, ConnectionOptions)}
     * does, then TLS over the winning connection: {@code host} is the name sent with SNI and the one
     * the server's certificate must carry (unless {@link TlsOptions#serverName()} names another, or
     * verification is off). The future completes once the handshake is done;
     * {@link ConnectionOptions#connectTimeout()} covers the handshake too.
     */
    public static LoopFuture<Connection> connect(Loop loop, String host, int port, ConnectionOptions options,
                                                 TlsOptions tls) {
        checkConnect(loop, host, port, options);
        Objects.requireNonNull(tls, "tls");
        return HappyEyeballs.connect(loop, host, port, options, tls);
    }

    private static void checkConnect(Loop loop, String host, int port, ConnectionOptions options) {
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(options, "options");
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range 0-65535: " + port + " (connecting to " + host + ")");
        }
        if (loop.isClosed()) {
            throw new IllegalStateException("loop is closed (backend " + loop.backendName() + ")");
        }
        if (loop.isRunning() && !loop.inLoop()) {
            throw new IllegalStateException("call on the loop thread while the loop runs (use loop.callSoon): " + loop);
        }
    }

    /**
     * A connect to an unresolved address fails as its future, as every failure of a connect does:
     * with an {@link UnknownHostException} naming the host, since resolving it here would block the
     * loop. Null when {@code address} is resolved.
     */
    private static LoopFuture<Connection> unresolved(Loop loop, InetSocketAddress address) {
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(address, "address");
        if (!address.isUnresolved()) {
            return null;
        }
        Promise<Connection> failed = loop.newPromise();
        failed.fail(new UnknownHostException(address.getHostString() + ": unresolved address " + address
                + "; connect by name with Net.connect(loop, host, port, options), which looks it up off the loop"));
        return failed;
    }

    private static GroupServer groupServer(LoopGroup group, GroupListen.Listening l) {
        return new GroupServer(group, l.servers(), l.mode());
    }

    private static NetRegistry registry(Loop loop, InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address
                    + ": resolve it first (a DNS lookup would block the loop)");
        }
        Objects.requireNonNull(loop, "loop");
        if (loop.isClosed()) {
            throw new IllegalStateException("loop is closed (backend " + loop.backendName() + ")");
        }
        if (loop.isRunning() && !loop.inLoop()) {
            throw new IllegalStateException("call on the loop thread while the loop runs (use loop.callSoon): " + loop);
        }
        return NetRegistry.of(loop);
    }
}
