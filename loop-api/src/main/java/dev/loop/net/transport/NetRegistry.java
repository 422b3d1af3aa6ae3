package dev.loop.net.transport;

import dev.loop.Loop;
import dev.loop.engine.Engine;
import dev.loop.engine.ExtensionKey;
import dev.loop.engine.LoopStats;
import dev.loop.spi.NetIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Everything one loop owns on the network: its listening sockets and connections, so closing the
 * loop closes them all and fails what they still have pending. Kept as the engine's
 * {@linkplain Engine#extension extension}, so the engine itself knows nothing of sockets. Not
 * thread-safe: loop thread only.
 *
 * <p>Also holds the one read buffer that push-style connections share: a handler consumes each
 * chunk during its call, so a thousand idle connections cost no buffer memory at all.
 */
public final class NetRegistry {
    private static final ExtensionKey<NetRegistry> KEY = new ExtensionKey<>("net");

    /** A socket the loop owns. */
    public interface Owned {
        /** The loop is closing: release the socket and fail every pending operation with {@code why}. */
        void loopClosing(IOException why);
    }

    public final Loop loop;
    public final NetIo io;
    /** The loop's metrics, which the layers above count their connections and bytes in. */
    public final LoopStats stats;
    private final Set<Owned> owned = new LinkedHashSet<>();
    private ByteBuffer scratch;
    private ByteBuffer datagrams;

    private NetRegistry(Loop loop, NetIo io) {
        this.loop = loop;
        this.io = io;
        this.stats = Engine.of(loop).stats();
    }

    /**
     * The registry of {@code loop}, made on first use, when it registers the close hook that closes
     * every socket with the loop.
     *
     * @throws UnsupportedOperationException if the loop's backend has no sockets
     */
    public static NetRegistry of(Loop loop) {
        return Engine.of(loop).extension(KEY, engine -> {
            NetIo nio = engine.io().net();
            if (nio == null) {
                throw new UnsupportedOperationException("backend " + engine.backendName() + " has no sockets");
            }
            NetRegistry r = new NetRegistry(loop, nio);
            engine.addCloseHook(r::closeAll);
            return r;
        });
    }

    public void add(Owned o) {
        owned.add(o);
    }

    public void remove(Owned o) {
        owned.remove(o);
    }

    public int size() {
        return owned.size();
    }

    /**
     * Hands an error nobody else can receive to the loop's exception handler. Never throws: this is
     * called from readiness callbacks, where an exception would end up in the loop's error path a
     * second time, and at the open-file limit that path itself can fail (formatting a log record
     * may need a descriptor). The engine's own fallback has then already said what it could.
     *
     * @return false if reporting failed
     */
    public boolean report(String message, Throwable error, Object source) {
        return report(message, error, source, null);
    }

    /**
     * As {@link #report(String, Throwable, Object)}, about {@code about} (the connection a failing
     * handler serves, say): the default handler's record names it in its context
     * ({@link Engine#report(String, Throwable, Object, Object)}).
     */
    public boolean report(String message, Throwable error, Object source, Object about) {
        try {
            Engine.of(loop).report(message, error, source, about);
            return true;
        } catch (Throwable reportFailed) {
            return false;
        }
    }

    // The datagram layer's counts: it does not name the engine (docs/adr/0013), so they pass here.

    /** A datagram was received. */
    public void datagramIn() {
        stats.datagramIn();
    }

    /** {@code n} datagrams were sent (handed to the kernel, or held for its next batched send). */
    public void datagramsOut(int n) {
        stats.datagramsOut(n);
    }

    /**
     * A UDP socket bound {@code local} opened: if it is the kernel's, snapshots read its drops.
     *
     * @return whether they do (then call {@link #udpClosed} when it closes)
     */
    public boolean udpOpened(java.net.InetSocketAddress local) {
        if (io.kernelSockets()) {
            stats.udpOpened(local);
            return true;
        }
        return false;
    }

    /** The UDP socket bound {@code local}, whose drops snapshots read, closed. */
    public void udpClosed(java.net.InetSocketAddress local) {
        stats.udpClosed(local);
    }

    /** The shared read buffer, cleared, with its limit at {@code size}. */
    public ByteBuffer scratch(int size) {
        ByteBuffer s = scratch;
        if (s == null || s.capacity() < size) {
            // direct: the JDK and native backends read into it without an extra copy
            s = scratch = ByteBuffer.allocateDirect(size);
        }
        s.clear().limit(size);
        return s;
    }

    /**
     * A second shared buffer, cleared, with its limit at {@code size}, for pull-style datagram
     * receives: a push handler that holds {@link #scratch} may receive on another endpoint.
     */
    public ByteBuffer datagramBuffer(int size) {
        ByteBuffer d = datagrams;
        if (d == null || d.capacity() < size) {
            d = datagrams = ByteBuffer.allocateDirect(size);
        }
        d.clear().limit(size);
        return d;
    }

    /** The loop's close hook. */
    private void closeAll() {
        List<Owned> all = new ArrayList<>(owned);
        owned.clear();
        IOException why = new IOException("the loop was closed (backend " + loop.backendName() + ")");
        for (Owned o : all) {
            try {
                o.loopClosing(why);
            } catch (RuntimeException e) {
                report("closing " + o + " while the loop closed failed", e, o);
            }
        }
    }
}
