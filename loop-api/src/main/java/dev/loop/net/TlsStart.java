package dev.loop.net;

import dev.loop.LoopFuture;
import dev.loop.Promise;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * How a connection gets its {@link TlsTransport}: when it connects, when it is accepted, or later by
 * STARTTLS. Stateless; loop thread only.
 */
final class TlsStart {
    private TlsStart() {
    }

    /** A client: connects a socket to {@code c}'s peer; the handshake follows the connect. */
    static TlsTransport connect(StreamConnection c, TlsOptions options) throws IOException {
        // the socket reports to the connection until the layer attaches itself, before any poll
        Transport socket = SocketTransport.connect(c.net.io, c.remote, c.options.kernelOptions(), c);
        TlsTransport t = new TlsTransport(c, socket, options, true, 0);
        t.connecting();
        return t;
    }

    /** A server's side of an accepted socket: the handshake starts at once. */
    static TlsTransport accept(StreamConnection c, Transport socket, TlsOptions options) {
        TlsTransport t = new TlsTransport(c, socket, options, false, 0);
        t.begin();
        return t;
    }

    /**
     * STARTTLS on {@code c}, whose socket has the interest {@code read}/{@code write}: {@code queued}
     * bytes still go out unencrypted first, and what {@code reader} read ahead is the start of the
     * peer's TLS.
     *
     * @return the future {@link Connection#startTls} returns: {@code c} once the handshake is done;
     *         if it fails, the connection is closed with the reason
     */
    static LoopFuture<Connection> upgrade(StreamConnection c, StreamReader reader, TlsOptions options, boolean client,
                                          long queued, boolean read, boolean write) {
        Objects.requireNonNull(options, "tls");
        if (c.transport instanceof TlsTransport) {
            throw new IllegalStateException("TLS is already on " + c);
        }
        Promise<Connection> upgraded = c.loop.newPromise();
        if (!c.isOpen()) {
            upgraded.fail(c.closedCause());
            return upgraded;
        }
        ByteBuffer readAhead = reader.takeReadAhead(); // throws if a read is pending: nothing changed then
        TlsTransport t = new TlsTransport(c, c.transport, options, client, queued);
        t.takeOver(read, write, readAhead);
        c.transport = t;
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
