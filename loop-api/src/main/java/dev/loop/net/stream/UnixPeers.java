package dev.loop.net.stream;

import dev.loop.net.Connection;
import dev.loop.net.LinuxAbstractAddress;
import dev.loop.net.PeerCredentials;
import dev.loop.net.Unix;
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
public final class UnixPeers {
    private UnixPeers() {
    }

    /** What {@code Unix.peerCredentials} answers; see there. */
    public static PeerCredentials credentials(Connection connection) throws IOException {
        if (!(connection instanceof StreamConnection c) || !isUnix(c.remoteSocketAddress())) {
            throw new IllegalArgumentException("not a Unix domain socket connection: " + connection);
        }
        if (c.isClosed()) {
            throw new ClosedChannelException();
        }
        UnixIo.IoPeerCredentials p;
        try {
            p = NetEntry.unix(c.net).peerCredentials(c.socket);
        } catch (UnsupportedOperationException e) {
            throw NetEntry.unsupported(c.net, e);
        }
        return new PeerCredentials(p.pid(), p.uid(), p.gid());
    }

    private static boolean isUnix(SocketAddress a) {
        return a instanceof UnixDomainSocketAddress || a instanceof LinuxAbstractAddress;
    }
}
