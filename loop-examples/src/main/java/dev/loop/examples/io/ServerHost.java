package dev.loop.examples.io;

import dev.loop.Loop;
import dev.loop.LoopGroup;
import dev.loop.LoopOptions;
import dev.loop.LoopFuture;
import dev.loop.Loops;
import dev.loop.Signals;
import dev.loop.net.Connection;
import dev.loop.net.GroupServer;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A server running on one loop, or on every loop of a {@link LoopGroup}, on threads of its own.
 * Thread-safe; call {@link #close()} from any thread but the loops'.
 *
 * <p>With one loop the server listens before the loop starts and the loop runs on a platform
 * thread of its own; with more, {@link Net#listen(LoopGroup, InetSocketAddress, ServerOptions,
 * Consumer)} serves the port on all of them (SO_REUSEPORT where the kernel balances it, else one
 * acceptor dealing connections out).
 *
 * <p>Stopping on a signal is here, for every example server: {@link #awaitSignalOrClose()} for a
 * host's own loops, {@link #runUntilSignal} for a server whose loop runs on the calling thread.
 * Either way {@code SIGTERM} and {@code SIGINT} (Ctrl-C) stop accepting first (a Unix socket's
 * file is removed with its listener), then close the loops, which closes every connection; the
 * program then returns from {@code main} with status 0. A second signal during that stop reaches
 * the JVM's own handler and ends the process at once.
 */
public final class ServerHost implements AutoCloseable {

    /** Makes the per-loop state of a service and returns what accepts connections on that loop. */
    @FunctionalInterface
    public interface Service {
        /**
         * Called once per loop, in the group's order, on the starting thread before any loop
         * accepts; the consumer then runs on {@code loop}'s thread.
         *
         * @param index {@code loop}'s position: 0 is the first loop
         * @param all   every loop of the server
         */
        Consumer<Connection> onLoop(Loop loop, int index, List<Loop> all);
    }

    private final Loop single;
    private final Thread singleThread;
    private final LoopGroup group;
    private final GroupServer groupServer;
    private final InetSocketAddress address;
    private final List<Loop> loops;
    /** How long open connections get to finish after a stop signal, before they are closed. */
    public static final Duration DRAIN = Duration.ofSeconds(10);

    private final CountDownLatch closed = new CountDownLatch(1);
    /** Counted down by a signal, by {@link #close()}, or by the single loop's thread ending. */
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final AtomicReference<String> signalled = new AtomicReference<>();
    private List<Signals.SignalHandle> signalHandles; // guarded by this
    private final Server singleServer; // the one loop's listener (null with a group)

    private ServerHost(Loop single, Thread singleThread, Server singleServer, InetSocketAddress address,
                       LoopGroup group, GroupServer groupServer) {
        this.single = single;
        this.singleServer = singleServer;
        this.singleThread = singleThread;
        this.group = group;
        this.groupServer = groupServer;
        this.address = address;
        this.loops = single != null ? List.of(single) : group.loops();
    }

    /**
     * Opens {@code loops} loops with {@code loopOptions}, listens on {@code address} and starts
     * serving.
     *
     * @throws java.net.BindException naming the address when it is taken
     */
    public static ServerHost start(String name, LoopOptions loopOptions, int loops, InetSocketAddress address,
                                   ServerOptions options, Service service) throws IOException {
        if (loops < 1) {
            throw new IllegalArgumentException(name + ": needs at least one loop: " + loops);
        }
        if (loops == 1) {
            Loop loop = Loops.open(loopOptions);
            Server server;
            try {
                server = listen(loop, address, options, service);
            } catch (IOException | RuntimeException e) {
                loop.close();
                throw e;
            }
            CountDownLatch[] ended = new CountDownLatch[1];
            Thread t = Thread.ofPlatform().name(name + "-loop").unstarted(() -> {
                try {
                    loop.runForever();
                } finally {
                    loop.close();
                    ended[0].countDown();
                }
            });
            ServerHost host = new ServerHost(loop, t, server, server.localAddress(), null, null);
            ended[0] = host.stopRequested;
            t.start();
            return host;
        }
        LoopGroup group = LoopGroup.open(loops, loopOptions);
        try {
            Map<Loop, Consumer<Connection>> perLoop = new IdentityHashMap<>();
            List<Loop> all = group.loops();
            for (int i = 0; i < all.size(); i++) {
                perLoop.put(all.get(i), service.onLoop(all.get(i), i, all));
            }
            // built before listen: the loops read the map only after listen hands them their part
            GroupServer gs = Net.listen(group, address, options, c -> perLoop.get(c.loop()).accept(c));
            return new ServerHost(null, null, null, gs.localAddress(), group, gs);
        } catch (IOException | RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /**
     * Serves on {@code loop}, a loop the caller runs and closes (a simulated host's, a test's): the
     * same wiring as {@link #start}'s with one loop, on a loop that is not the server's own. Call
     * it on {@code loop}'s thread or before the loop runs. {@link #close()} closes the listener and
     * its connections and leaves the loop running; {@link #stopOnSignals()} is not for such a host.
     *
     * @throws java.net.BindException naming the address when it is taken
     */
    public static ServerHost on(Loop loop, InetSocketAddress address, ServerOptions options, Service service)
            throws IOException {
        Server server = listen(loop, address, options, service);
        return new ServerHost(loop, null, server, server.localAddress(), null, null);
    }

    /** The one place a single loop's listener is wired, for {@link #start} and {@link #on} alike. */
    private static Server listen(Loop loop, InetSocketAddress address, ServerOptions options, Service service)
            throws IOException {
        return Net.listen(loop, address, options, service.onLoop(loop, 0, List.of(loop)));
    }

    /** Where it listens (the real port when it was asked for port 0). */
    public InetSocketAddress address() {
        return address;
    }

    /** The loops serving, in order. */
    public List<Loop> loops() {
        return loops;
    }

    /** The backend's name, for the start-up line. */
    public String backendName() {
        return loops.get(0).backendName();
    }

    /** How the port is shared by a group: {@code REUSE_PORT}, {@code HANDOFF}, or "one loop". */
    public String acceptMode() {
        return groupServer == null ? "one loop" : groupServer.mode().toString();
    }

    /** Blocks until the server is closed (by {@link #close()} from another thread, or interrupted). */
    public void awaitClosed() throws InterruptedException {
        if (singleThread != null) {
            singleThread.join();
        } else {
            closed.await();
        }
    }

    /**
     * From now on {@code SIGTERM} and {@code SIGINT} close this server (see
     * {@link #awaitSignalOrClose()}). Call it before saying the server is up, so that a signal sent
     * by whoever read that line finds the handlers in place. Idempotent.
     */
    public synchronized void stopOnSignals() {
        if (signalHandles != null) {
            return;
        }
        Loop first = loops.get(0);
        Signals.SignalHandle term = Signals.on(first, "TERM", () -> stopRequested("TERM"));
        try {
            signalHandles = List.of(term, Signals.on(first, "INT", () -> stopRequested("INT")));
        } catch (RuntimeException e) {
            term.remove();
            throw e;
        }
    }

    private void stopRequested(String why) {
        signalled.compareAndSet(null, why);
        stopRequested.countDown();
    }

    /**
     * Blocks until {@code SIGTERM} or {@code SIGINT} arrives (or {@link #close()} is called from
     * another thread, or the loop stops). After a signal the server stops accepting and gives open
     * connections {@link #DRAIN} to finish ({@link Server#shutdown}); then it closes as
     * {@link #close()} does.
     *
     * @return the signal's name ({@code "TERM"}, {@code "INT"}), or null if it was closed otherwise
     */
    public String awaitSignalOrClose() throws InterruptedException {
        stopOnSignals();
        stopRequested.await();
        String why = signalled.get();
        if (why != null) {
            drain(DRAIN);
        }
        close();
        return why;
    }

    /**
     * Stops accepting and waits, at most {@code deadline} and the flush limit, for the open
     * connections to finish: on every loop at once, the loops still running.
     */
    private void drain(Duration deadline) throws InterruptedException {
        long waitMs = deadline.plus(Server.SHUTDOWN_FLUSH_LIMIT).toMillis() + 1000;
        CompletableFuture<Void> done;
        if (singleServer != null) {
            done = new CompletableFuture<>();
            try {
                single.execute(() -> singleServer.shutdown(deadline).onDone(f -> done.complete(null)));
            } catch (RejectedExecutionException loopClosed) {
                return; // the loop ended by itself: nothing left to drain
            }
        } else {
            done = groupServer.shutdown(deadline);
        }
        try {
            done.get(waitMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // close() below closes whatever is left
        }
    }

    /**
     * Runs {@code loop} on the calling thread until {@code SIGTERM} or {@code SIGINT}, then runs
     * {@code stopAccepting} on it (close the listener: no new connections, a Unix socket's file
     * removed) and returns; the caller then closes the loop, which closes every connection.
     *
     * @param ready runs once the handlers are in place, before the loop: say the server is up here,
     *              so a signal sent by whoever read that cannot come too early
     * @return the signal's name, {@code "TERM"} or {@code "INT"}
     */
    public static String runUntilSignal(Loop loop, Runnable ready, Runnable stopAccepting) {
        LoopFuture<String> signal = Signals.awaitTermination(loop);
        ready.run();
        String why = loop.runUntilComplete(signal);
        stopAccepting.run();
        return why;
    }

    /**
     * As {@link #runUntilSignal(Loop, Runnable, Runnable)} for a TCP or Unix socket server: after
     * the signal it stops accepting and gives open connections {@link #DRAIN} to finish
     * ({@link Server#shutdown}) before it returns.
     */
    public static String runUntilSignal(Loop loop, Runnable ready, Server server) {
        String why = runUntilSignal(loop, ready, () -> { });
        loop.runUntilComplete(server.shutdown(DRAIN));
        return why;
    }

    /** Stops the loops, which closes every connection and the listening sockets. Idempotent. */
    @Override
    public void close() {
        stopRequested.countDown();
        synchronized (this) {
            if (signalHandles != null) {
                signalHandles.forEach(Signals.SignalHandle::remove);
            }
        }
        if (single != null && singleThread == null) {
            closeBorrowed();
        } else if (single != null) {
            if (!single.isClosed()) {
                single.stop();
            }
            boolean interrupted = false;
            while (singleThread.isAlive()) {
                try {
                    singleThread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        } else {
            groupServer.close(true);
            group.close();
        }
        closed.countDown();
    }

    /** A caller's loop stays open: only the listener and its connections close, on the loop's thread. */
    private void closeBorrowed() {
        if (single.inLoop()) {
            singleServer.close(true);
            return;
        }
        try {
            single.execute(() -> singleServer.close(true));
        } catch (java.util.concurrent.RejectedExecutionException loopClosed) {
            // the loop closed first, and its sockets with it
        }
    }
}
