package dev.loop.net.transport;

import dev.loop.Loop;
import dev.loop.net.Unix;
import dev.loop.spi.DatagramIo;
import dev.loop.spi.UnixIo;
import dev.loop.spi.WatchIo;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * What every entry point of the networking API checks first (the loop is open and called on its
 * thread), and the backend's optional capabilities, each refused with a message that names the
 * backend when it lacks one (docs/adr/0010-datagrams-and-unix-sockets.md).
 */
public final class NetEntry {
    private NetEntry() {
    }

    /**
     * The registry of {@code loop}, checked for use by the calling thread.
     *
     * @throws IllegalStateException if the loop is closed, or running on another thread
     */
    public static NetRegistry registry(Loop loop) {
        Objects.requireNonNull(loop, "loop");
        if (loop.isClosed()) {
            throw new IllegalStateException("loop is closed (backend " + loop.backendName() + ")");
        }
        if (loop.isRunning() && !loop.inLoop()) {
            throw new IllegalStateException("call on the loop thread while the loop runs (use loop.callSoon): " + loop);
        }
        return NetRegistry.of(loop);
    }

    /** Refuses an address a DNS lookup would have to resolve first (it would block the loop). */
    public static InetSocketAddress resolved(InetSocketAddress address, String what) {
        Objects.requireNonNull(address, what);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address + " (" + what
                    + "): resolve it first (a DNS lookup would block the loop)");
        }
        return address;
    }

    public static DatagramIo datagrams(NetRegistry net) {
        DatagramIo d = net.io.datagrams();
        if (d == null) {
            throw new UnsupportedOperationException("backend " + net.loop.backendName() + " has no datagram sockets");
        }
        return d;
    }

    public static UnixIo unix(NetRegistry net) {
        UnixIo u = net.io.unix();
        if (u == null) {
            throw new UnsupportedOperationException("backend " + net.loop.backendName() + " has no Unix domain sockets");
        }
        return u;
    }

    public static WatchIo watches(NetRegistry net) {
        WatchIo w = net.io.watches();
        if (w == null) {
            throw new UnsupportedOperationException("backend " + net.loop.backendName()
                    + " cannot watch channels or descriptors of its caller");
        }
        return w;
    }

    /** A capability the backend refused, with the backend's name put in front of its reason. */
    public static UnsupportedOperationException unsupported(NetRegistry net, UnsupportedOperationException e) {
        String why = e.getMessage();
        String backend = "backend " + net.loop.backendName();
        if (why != null && why.startsWith(backend)) {
            return e;
        }
        return new UnsupportedOperationException(backend + ": " + why, e);
    }
}
