package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A plain TCP proxy on the loop that forwards one connection to a TLS server and keeps every byte
 * of both directions, so a test can read the TLS records on the wire: their content types show
 * whether an alert (close_notify, in TLS 1.2, where alerts are not disguised) closed a direction.
 * Not thread-safe: loop thread only.
 */
final class TlsRecordingProxy {
    private final Server server;
    private final ByteArrayOutputStream up = new ByteArrayOutputStream();   // client to server
    private final ByteArrayOutputStream down = new ByteArrayOutputStream(); // server to client
    private final Promise<Void> upstreamEnded;

    private TlsRecordingProxy(Loop loop, InetSocketAddress target) throws IOException {
        upstreamEnded = loop.newPromise();
        server = Net.listen(loop, NetContract.ANY_PORT, client -> Net.connect(loop, target).onDone(f -> {
            Connection upstream = f.result();
            client.setHandler(pipe(upstream, up, null));
            upstream.setHandler(pipe(client, down, upstreamEnded));
        }));
    }

    /** Listens on a free loopback port for one client to forward to {@code target}. */
    static TlsRecordingProxy start(Loop loop, InetSocketAddress target) throws IOException {
        return new TlsRecordingProxy(loop, target);
    }

    InetSocketAddress address() {
        return server.localAddress();
    }

    /** Done once the server's side ended, by end of stream or reset. */
    LoopFuture<Void> upstreamEnded() {
        return upstreamEnded;
    }

    /**
     * The content type of the last whole record sent by the client ({@code fromClient}) or the
     * server: 21 alert, 22 handshake, 23 application data; -1 if there was none.
     */
    int lastRecordType(boolean fromClient) {
        byte[] b = (fromClient ? up : down).toByteArray();
        int last = -1;
        for (int at = 0; at + 5 <= b.length; ) {
            int len = ((b[at + 3] & 0xff) << 8) | (b[at + 4] & 0xff);
            if (at + 5 + len > b.length) {
                break;
            }
            last = b[at] & 0xff;
            at += 5 + len;
        }
        return last;
    }

    private static ConnectionHandler pipe(Connection to, ByteArrayOutputStream record, Promise<Void> ended) {
        return new ConnectionHandler() {
            @Override
            public void onData(Connection from, ByteBuffer data) {
                byte[] copy = new byte[data.remaining()];
                data.get(copy);
                record.writeBytes(copy);
                to.write(copy);
            }

            @Override
            public void onEof(Connection from) {
                to.shutdownOutput();
                if (ended != null) {
                    ended.tryComplete(null);
                }
            }

            @Override
            public void onClosed(Connection from, Throwable error) {
                if (error != null) {
                    to.abort();
                }
                if (ended != null) {
                    ended.tryComplete(null);
                }
            }
        };
    }
}
