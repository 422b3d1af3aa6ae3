package dev.loop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Several loops, each running on a thread of its own, and servers that accept on all of them: the
 * way to use every core with loops that stay single-threaded. Thread-safe: every method may be
 * called from any thread that is not one of the group's loops (the blocking ones wait for the
 * loops, and a loop waiting for itself would never return).
 *
 * <p>Each loop is an ordinary {@link Loop}: reach it with {@link #loops()} or {@link #next()} and
 * hand it work with {@link Loop#callSoon}. See docs/adr/0005-loop-group.md.
 */
public final class LoopGroup implements AutoCloseable {

    /** How {@link #listen} spreads incoming connections over the loops. */
    public enum AcceptMode {
        /** {@link #REUSE_PORT} where the backend's kernel balances it (epoll), else {@link #HANDOFF}. */
        AUTO,
        /** Every loop listens on the port with {@code SO_REUSEPORT}; the kernel picks the loop. */
        REUSE_PORT,
        /** The first loop accepts and hands each connection to the loops in turn, itself included. */
        HANDOFF
    }

    private static final AtomicInteger GROUPS = new AtomicInteger();

    private final List<Loop> loops;
    private final List<Thread> threads;
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean closing;

    private LoopGroup(int n, LoopOptions options) {
        int id = GROUPS.incrementAndGet();
        List<Loop> ls = new ArrayList<>(n);
        List<Thread> ts = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                ls.add(Loops.open(options));
            }
        } catch (RuntimeException e) {
            ls.forEach(Loop::close);
            throw e;
        }
        for (int i = 0; i < n; i++) {
            Loop loop = ls.get(i);
            ts.add(Thread.ofPlatform().name("loop-" + id + "-" + i).start(() -> runUntilClosed(loop)));
        }
        this.loops = List.copyOf(ls);
        this.threads = List.copyOf(ts);
    }

    /** One loop per available processor on the best backend. */
    public static LoopGroup open() {
        return open(Runtime.getRuntime().availableProcessors(), LoopOptions.defaults());
    }

    /**
     * {@code n} loops opened with {@code options}, each running on its own platform thread.
     *
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public static LoopGroup open(int n, LoopOptions options) {
        if (n < 1) {
            throw new IllegalArgumentException("a group needs at least one loop: " + n);
        }
        return new LoopGroup(n, Objects.requireNonNull(options, "options"));
    }

    private void runUntilClosed(Loop loop) {
        try {
            // stop() from elsewhere only ends one run: the group decides when its loops end.
            while (!closing && !Thread.currentThread().isInterrupted()) {
                loop.runForever();
            }
        } finally {
            loop.close();
        }
    }

    /** The loops, in a fixed order. */
    public List<Loop> loops() {
        return loops;
    }

    public int size() {
        return loops.size();
    }

    /** The loops in turn (round-robin), for spreading client connections or work. */
    public Loop next() {
        return loops.get(Math.floorMod(next.getAndIncrement(), loops.size()));
    }

    /** Listens with {@link AcceptMode#AUTO}. */
    public GroupServer listen(InetSocketAddress address, ServerOptions options, Consumer<Connection> onAccept)
            throws IOException {
        return listen(address, options, AcceptMode.AUTO, onAccept);
    }

    /**
     * Listens on {@code address} on behalf of every loop; each accepted connection lives on one
     * loop, and {@code onAccept} runs on that loop's thread. Blocks until every loop is ready.
     *
     * @throws java.net.BindException naming the address when it is in use
     * @throws UnsupportedOperationException with {@link AcceptMode#REUSE_PORT} on a backend or
     *                                       platform without {@code SO_REUSEPORT}
     */
    public GroupServer listen(InetSocketAddress address, ServerOptions options, AcceptMode mode,
                              Consumer<Connection> onAccept) throws IOException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(onAccept, "onAccept");
        checkOpen();
        Loop first = loops.get(0);
        AcceptMode m = mode;
        if (m == AcceptMode.AUTO) {
            boolean balances = onLoop(first, () -> ((EventLoop) first).net().io.reusePortBalances());
            m = balances && loops.size() > 1 ? AcceptMode.REUSE_PORT : AcceptMode.HANDOFF;
        }
        return m == AcceptMode.REUSE_PORT ? listenEverywhere(address, options.withReusePort(true), onAccept)
                : listenAndHandOff(address, options, onAccept);
    }

    private GroupServer listenEverywhere(InetSocketAddress address, ServerOptions options, Consumer<Connection> onAccept)
            throws IOException {
        List<Server> servers = new ArrayList<>(loops.size());
        try {
            InetSocketAddress at = address;
            for (Loop loop : loops) {
                InetSocketAddress bindTo = at;
                Server s = onLoop(loop, () -> Net.listen(loop, bindTo, options, onAccept));
                servers.add(s);
                at = s.localAddress(); // port 0: the others join the port the first one got
            }
        } catch (IOException | RuntimeException e) {
            closeAll(servers, false);
            throw e;
        }
        return new GroupServer(this, servers, AcceptMode.REUSE_PORT);
    }

    private GroupServer listenAndHandOff(InetSocketAddress address, ServerOptions options, Consumer<Connection> onAccept)
            throws IOException {
        List<TcpServer> shards = new ArrayList<>(loops.size());
        try {
            for (Loop loop : loops) {
                shards.add(onLoop(loop, () -> new TcpServer(((EventLoop) loop).net(), options, onAccept)));
            }
            TcpServer acceptor = shards.get(0);
            Dispatcher d = new Dispatcher(shards);
            onLoop(loops.get(0), () -> {
                acceptor.dispatchTo(d);
                acceptor.listen(address);
                return null;
            });
            for (int i = 1; i < shards.size(); i++) {
                TcpServer shard = shards.get(i);
                onLoop(loops.get(i), () -> {
                    shard.shard(acceptor.localAddress());
                    return null;
                });
            }
        } catch (IOException | RuntimeException e) {
            closeAll(new ArrayList<>(shards), false);
            throw e;
        }
        return new GroupServer(this, new ArrayList<>(shards), AcceptMode.HANDOFF);
    }

    /** Runs on the accepting loop: sends each socket to the next loop's shard, through its inbox. */
    private static final class Dispatcher implements TcpServer.Dispatch {
        private final List<TcpServer> shards;
        private int turn; // the accepting loop's thread only

        Dispatcher(List<TcpServer> shards) {
            this.shards = shards;
        }

        @Override
        public void dispatch(dev.loop.spi.IoSocket accepted) {
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

    void closeAll(List<? extends Server> servers, boolean closeConnections) {
        for (Server s : servers) {
            try {
                onLoop(s.loop(), () -> {
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
    <T> T onLoop(Loop loop, Callable<T> task) throws IOException {
        if (loop.inLoop()) {
            return call(task);
        }
        if (EventLoop.current() != null && loops.contains(EventLoop.current())) {
            throw new IllegalStateException("a blocking group call from one of its loop threads would stall that loop");
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

    private void checkOpen() {
        if (closing) {
            throw new IllegalStateException("the loop group is closed");
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closing;
    }

    /**
     * Stops every loop and waits until each has closed (its sockets closed, its pending futures
     * failed, as {@link Loop#close()} does). Idempotent.
     */
    @Override
    public void close() {
        closing = true;
        for (Loop loop : loops) {
            loop.stop();
        }
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LoopGroup[" + loops.size() + " loops on " + loops.get(0).backendName() + (closing ? ", closed" : "") + "]";
    }
}
