package dev.loop.net;

import dev.loop.LoopGroup;
import dev.loop.net.stream.GroupListen;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

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

    /**
     * {@link Server#shutdown(Duration) Graceful shutdown} on every loop at once: each stops
     * accepting, lets its connections finish and closes those open after {@code deadline}. Does
     * not block, so any thread may call it (a loop of the group too).
     *
     * @return done once every loop's connections are closed (a loop already closed counts as done)
     */
    public CompletableFuture<Void> shutdown(Duration deadline) {
        java.util.Objects.requireNonNull(deadline, "deadline");
        CompletableFuture<?>[] each = new CompletableFuture<?>[servers.size()];
        for (int i = 0; i < each.length; i++) {
            Server s = servers.get(i);
            CompletableFuture<Void> done = new CompletableFuture<>();
            each[i] = done;
            try {
                s.loop().execute(() -> s.shutdown(deadline).onDone(f -> done.complete(null)));
            } catch (RejectedExecutionException closed) {
                done.complete(null); // a closed loop closed its connections
            }
        }
        return CompletableFuture.allOf(each);
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
