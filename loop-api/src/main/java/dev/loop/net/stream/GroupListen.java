package dev.loop.net.stream;

import dev.loop.Loop;
import dev.loop.LoopGroup;
import dev.loop.net.AcceptMode;
import dev.loop.net.Connection;
import dev.loop.net.GroupServer;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.TlsOptions;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * Listening on behalf of every loop of a {@link LoopGroup} (docs/adr/0005-loop-group.md): one
 * {@code SO_REUSEPORT} socket per loop where the kernel balances them, else one accepting loop that
 * deals sockets to the others through their inboxes. Called from threads that are not the group's
 * loops; each step runs on the loop it concerns and is waited for.
 */
public final class GroupListen {
    private GroupListen() {
    }

    /**
     * Servers listening on behalf of a group, one per loop in the group's order, and the mode
     * {@code AUTO} chose; the public {@link GroupServer} is made of it.
     */
    public record Listening(List<Server> servers, AcceptMode mode) {
    }

    public static Listening listen(LoopGroup group, InetSocketAddress address, ServerOptions options, AcceptMode mode,
                                   TlsOptions tls, Consumer<Connection> onAccept) throws IOException {
        if (group.isClosed()) {
            throw new IllegalStateException("the loop group is closed");
        }
        List<Loop> loops = group.loops();
        Loop first = loops.get(0);
        AcceptMode m = mode;
        if (m == AcceptMode.AUTO) {
            boolean balances = onLoop(group, first, () -> NetRegistry.of(first).io.reusePortBalances());
            m = balances && loops.size() > 1 ? AcceptMode.REUSE_PORT : AcceptMode.HANDOFF;
        }
        return m == AcceptMode.REUSE_PORT ? listenEverywhere(group, address, options.withReusePort(true), tls, onAccept)
                : listenAndHandOff(group, address, options, tls, onAccept);
    }

    private static Listening listenEverywhere(LoopGroup group, InetSocketAddress address, ServerOptions options,
                                              TlsOptions tls, Consumer<Connection> onAccept) throws IOException {
        List<Server> servers = new ArrayList<>(group.size());
        try {
            InetSocketAddress at = address;
            for (Loop loop : group.loops()) {
                InetSocketAddress bindTo = at;
                Server s = onLoop(group, loop, () -> tls == null ? Net.listen(loop, bindTo, options, onAccept)
                        : Net.listen(loop, bindTo, options, tls, onAccept));
                servers.add(s);
                at = s.localAddress(); // port 0: the others join the port the first one got
            }
        } catch (IOException | RuntimeException e) {
            closeAll(group, servers, false);
            throw e;
        }
        return new Listening(servers, AcceptMode.REUSE_PORT);
    }

    private static Listening listenAndHandOff(LoopGroup group, InetSocketAddress address, ServerOptions options,
                                              TlsOptions tls, Consumer<Connection> onAccept) throws IOException {
        List<Loop> loops = group.loops();
        List<TcpServer> shards = new ArrayList<>(loops.size());
        try {
            for (Loop loop : loops) {
                shards.add(onLoop(group, loop, () -> {
                    TcpServer shard = new TcpServer(NetRegistry.of(loop), options, onAccept);
                    shard.tls(tls); // each loop runs the handshakes of the connections it adopts
                    return shard;
                }));
            }
            TcpServer acceptor = shards.get(0);
            Dispatcher d = new Dispatcher(shards);
            onLoop(group, loops.get(0), () -> {
                acceptor.dispatchTo(d);
                acceptor.listen(address);
                return null;
            });
            for (int i = 1; i < shards.size(); i++) {
                TcpServer shard = shards.get(i);
                onLoop(group, loops.get(i), () -> {
                    shard.shard(acceptor.localAddress());
                    return null;
                });
            }
        } catch (IOException | RuntimeException e) {
            closeAll(group, new ArrayList<>(shards), false);
            throw e;
        }
        return new Listening(new ArrayList<>(shards), AcceptMode.HANDOFF);
    }

    /** Runs on the accepting loop: sends each socket to the next loop's shard, through its inbox. */
    private static final class Dispatcher implements TcpServer.Dispatch {
        private final List<TcpServer> shards;
        private int turn; // the accepting loop's thread only

        Dispatcher(List<TcpServer> shards) {
            this.shards = shards;
        }

        @Override
        public void dispatch(IoSocket accepted) {
            TcpServer target = shards.get(turn);
            turn = (turn + 1) % shards.size();
            if (target == shards.get(0)) {
                target.adopt(accepted); // this loop's own turn: no hand-over needed
                return;
            }
            try {
                target.loop().callSoon(() -> target.adoptFrom(accepted));
            } catch (RuntimeException closed) {
                accepted.close(); // that loop is closed: nobody will adopt it
            }
        }
    }

    /** Closes each server on its own loop and waits; a closed loop closed its servers already. */
    public static void closeAll(LoopGroup group, List<? extends Server> servers, boolean closeConnections) {
        for (Server s : servers) {
            try {
                onLoop(group, s.loop(), () -> {
                    s.close(closeConnections);
                    return null;
                });
            } catch (IOException | RuntimeException e) {
                // a closed loop closed its servers already
            }
        }
    }

    /**
     * Runs {@code task} on {@code loop}'s thread and waits for its outcome.
     *
     * @throws IllegalStateException if called on one of the group's loop threads
     */
    static <T> T onLoop(LoopGroup group, Loop loop, Callable<T> task) throws IOException {
        if (loop.inLoop()) {
            return call(task);
        }
        for (Loop l : group.loops()) {
            if (l.inLoop()) {
                throw new IllegalStateException("a blocking group call from one of its loop threads would stall that loop");
            }
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        loop.callSoon(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + loop, e);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    private static <T> T call(Callable<T> task) throws IOException {
        try {
            return task.call();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw rethrow(e);
        }
    }

    private static RuntimeException rethrow(Throwable t) throws IOException {
        if (t instanceof IOException io) {
            throw io;
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        throw new IllegalStateException(t);
    }
}
