package dev.loop.net.stream;

import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.TlsOptions;
import dev.loop.net.tls.TlsStart;
import dev.loop.net.tls.TlsTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * STARTTLS as a stream connection does it, stateless, loop thread only: it asks the TLS package for
 * a layer over the transport in use and swaps the layer in itself; the layer never sees the
 * connection.
 */
final class StartTls {
    private StartTls() {
    }

    /**
     * Upgrades {@code c}, whose transport has the interest {@code read}/{@code write}: {@code queued}
     * bytes still go out unencrypted first, and what {@code reader} read ahead is the start of the
     * peer's TLS.
     *
     * @return the future {@link Connection#startTls} returns: {@code c} once the handshake is done;
     *         if it fails, the connection is closed with the reason
     */
    static LoopFuture<Connection> upgrade(StreamConnection c, StreamReader reader, TlsOptions options, boolean client,
                                          long queued, boolean read, boolean write) {
        Objects.requireNonNull(options, "tls");
        if (c.tls != null) {
            throw new IllegalStateException("TLS is already on " + c);
        }
        Promise<Connection> upgraded = c.loop.newPromise();
        if (!c.isOpen()) {
            upgraded.fail(c.closedCause());
            return upgraded;
        }
        InetSocketAddress peer = TlsStart.tcpPeer(c.remote); // before anything changes: TLS runs over TCP only
        ByteBuffer readAhead = reader.takeReadAhead(); // throws if a read is pending: nothing changed then
        TlsTransport t = TlsStart.upgrade(c.net, c.transport, c, options, client, peer, queued, read, write, readAhead);
        c.transport = c.tls = t;
        t.handshake().onDone(f -> {
            if (f.isSuccess()) {
                upgraded.tryComplete(c);
            } else {
                Throwable why = f.exception();
                c.closeNow(why instanceof IOException io ? io : new IOException(why));
                upgraded.tryFail(why);
            }
        });
        t.begin();
        return upgraded;
    }
}
