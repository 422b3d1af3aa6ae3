package dev.loop.net.stream;

import dev.loop.net.LinuxAbstractAddress;
import dev.loop.net.PeerCredentials;
import dev.loop.net.transport.NetEntry;
import dev.loop.spi.UnixIo;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;

/**
 * The credentials of a Unix domain socket's peer, asked of the backend's socket under the
 * connection (not of the connection's transport, which a layer could stand in for). Stateless.
 */
final class UnixPeers {
    private UnixPeers() {
    }

    /** What {@code Connection.peerCredentials} answers; see there. */
    static PeerCredentials credentials(StreamConnection c) throws IOException {
        if (!isUnix(c.remote)) {
            throw new UnsupportedOperationException("not a Unix domain socket connection: " + c);
        }
        if (c.isClosed()) {
            throw new ClosedChannelException();
        }
        UnixIo.IoPeerCredentials p;
        try {
            p = c.socket.peerCredentials();
        } catch (UnsupportedOperationException e) {
            throw NetEntry.unsupported(c.net, e);
        }
        return new PeerCredentials(p.pid(), p.uid(), p.gid());
    }

    private static boolean isUnix(SocketAddress a) {
        return a instanceof UnixDomainSocketAddress || a instanceof LinuxAbstractAddress;
    }
}
