package dev.loop;

import dev.loop.spi.NetIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Everything one loop owns on the network: its listening sockets and connections, so closing the
 * loop closes them all and fails what they still have pending. Not thread-safe: loop thread only.
 *
 * <p>Also holds the one read buffer that push-style connections share: a handler consumes each
 * chunk during its call, so a thousand idle connections cost no buffer memory at all.
 */
final class NetRegistry {

    /** A socket the loop owns. */
    interface Owned {
        /** The loop is closing: release the socket and fail every pending operation with {@code why}. */
        void loopClosing(IOException why);
    }

    final EventLoop loop;
    final NetIo io;
    private final Set<Owned> owned = new LinkedHashSet<>();
    private ByteBuffer scratch;

    NetRegistry(EventLoop loop, NetIo io) {
        this.loop = loop;
        this.io = io;
    }

    void add(Owned o) {
        owned.add(o);
    }

    void remove(Owned o) {
        owned.remove(o);
    }

    int size() {
        return owned.size();
    }

    /** The shared read buffer, cleared, with its limit at {@code size}. */
    ByteBuffer scratch(int size) {
        ByteBuffer s = scratch;
        if (s == null || s.capacity() < size) {
            // direct: the JDK and native backends read into it without an extra copy
            s = scratch = ByteBuffer.allocateDirect(size);
        }
        s.clear().limit(size);
        return s;
    }

    /** The loop's close hook. */
    void closeAll() {
        List<Owned> all = new ArrayList<>(owned);
        owned.clear();
        IOException why = new IOException("the loop was closed (backend " + loop.backendName() + ")");
        for (Owned o : all) {
            try {
                o.loopClosing(why);
            } catch (RuntimeException e) {
                loop.report("closing " + o + " while the loop closed failed", e, o);
            }
        }
    }
}
