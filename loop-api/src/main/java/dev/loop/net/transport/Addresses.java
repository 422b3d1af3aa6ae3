package dev.loop.net.transport;

import dev.loop.net.Connection;
import dev.loop.net.Unix;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/**
 * The IP view of a socket address, for the accessors that predate Unix domain sockets
 * ({@link Connection#localAddress()} and the like), which keep returning
 * {@link InetSocketAddress} so that callers reading a port need no cast (docs/adr/0010).
 */
public final class Addresses {
    /** How a Unix domain socket that never bound a name is named, as the JDK names it: an empty path. */
    public static final UnixDomainSocketAddress UNNAMED_UNIX = UnixDomainSocketAddress.of("");

    private Addresses() {
    }

    /**
     * {@code address} as an IP address, or null for null.
     *
     * @param owner what the address belongs to, for the message
     * @throws UnsupportedOperationException if it is not an IP address (a Unix domain socket's)
     */
    public static InetSocketAddress inet(SocketAddress address, Object owner) {
        if (address == null || address instanceof InetSocketAddress) {
            return (InetSocketAddress) address;
        }
        throw new UnsupportedOperationException(owner + " is not an IP socket (its address is " + describe(address)
                + "): use localSocketAddress() or remoteSocketAddress()");
    }

    /** How an address is named in messages: a Unix socket's unnamed address as "unnamed". */
    public static String describe(SocketAddress address) {
        String s = String.valueOf(address);
        return s.isEmpty() ? "unnamed" : s;
    }
}
