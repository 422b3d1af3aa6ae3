package dev.loop.net;

import dev.loop.LoopGroup;
import dev.loop.net.stream.GroupListen;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A server listening on behalf of every loop of a {@link LoopGroup}. Thread-safe; its blocking
 * methods must not be called from the group's loop threads.
 */
public final class GroupServer implements AutoCloseable {
    private final LoopGroup group;
    private final List<Server> servers;
    private final AcceptMode mode;

    GroupServer(LoopGroup group, List<Server> servers, AcceptMode mode) {
        this.group = group;
        this.servers = List.copyOf(servers);
        this.mode = mode;
    }

    /** Where it listens (the real port when it was asked to listen on port 0). */
    public InetSocketAddress localAddress() {
        return servers.get(0).localAddress();
    }

    /** {@link AcceptMode#REUSE_PORT} or {@link AcceptMode#HANDOFF}: what AUTO chose. */
    public AcceptMode mode() {
        return mode;
    }

    /**
     * One server per loop, in the group's loop order; each is used on its own loop's thread only.
     * With {@link AcceptMode#HANDOFF} only the first has a listening socket, the others
     * adopt what it accepts.
     */
    public List<Server> servers() {
        return servers;
    }

    /**
     * Stops accepting on every loop; with {@code closeConnections}, closes every accepted
     * connection gracefully as well. Blocks until each loop did. Idempotent.
     */
    public void close(boolean closeConnections) {
        GroupListen.closeAll(group, servers, closeConnections);
    }

    /** Stops accepting; accepted connections stay open. */
    @Override
    public void close() {
        close(false);
    }

    @Override
    public String toString() {
        return "GroupServer[" + localAddress() + ", " + mode + ", " + servers.size() + " loops]";
    }
}
