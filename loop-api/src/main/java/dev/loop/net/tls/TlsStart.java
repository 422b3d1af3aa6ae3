package dev.loop.net.tls;

import dev.loop.net.TlsOptions;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * How a {@link TlsTransport} is put over a byte pipe: a client's over a socket still connecting, a
 * server's over an accepted socket, or STARTTLS over the pipe an open connection already uses.
 * Stateless; loop thread only.
 *
 * <p>The layer sees only the {@link IoTransport} below it and the {@link IoReady} above it, never
 * the connection: the connection asks for a layer and swaps it in itself.
 */
public final class TlsStart {
    private TlsStart() {
    }

    /**
     * The IP peer a TLS session is made for (host name checks, SNI, session reuse).
     *
     * @throws UnsupportedOperationException for any other kind of address: TLS runs over TCP only
     */
    public static InetSocketAddress tcpPeer(SocketAddress remote) {
        if (remote instanceof InetSocketAddress ip) {
            return ip;
        }
        throw new UnsupportedOperationException("TLS runs over TCP connections only, not over " + remote);
    }

    /** A client's layer over {@code socket}, still connecting; the handshake follows the connect. */
    public static TlsTransport client(NetRegistry net, IoTransport socket, IoReady up, TlsOptions options,
                               InetSocketAddress peer) {
        TlsTransport t = new TlsTransport(net, socket, up, options, true, peer, 0);
        t.connecting();
        return t;
    }

    /** A server's layer over an accepted socket: the handshake starts at once. */
    public static TlsTransport server(NetRegistry net, IoTransport socket, IoReady up, TlsOptions options,
                               InetSocketAddress peer) {
        TlsTransport t = new TlsTransport(net, socket, up, options, false, peer, 0);
        t.begin();
        return t;
    }

    /**
     * STARTTLS over {@code current}, whose receiver {@code up} had asked it for {@code read}/{@code
     * write}: {@code queued} bytes still go out unencrypted first, and {@code readAhead} (what the
     * reader above read past its last plaintext message, or null) is the start of the peer's TLS.
     * The layer is not begun: the caller swaps it in, then calls {@link TlsTransport#begin()}.
     */
    public static TlsTransport upgrade(NetRegistry net, IoTransport current, IoReady up, TlsOptions options, boolean client,
                                InetSocketAddress peer, long queued, boolean read, boolean write, ByteBuffer readAhead) {
        TlsTransport t = new TlsTransport(net, current, up, options, client, peer, queued);
        t.takeOver(read, write, readAhead);
        return t;
    }
}
