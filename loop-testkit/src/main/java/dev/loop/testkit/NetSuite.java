package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;

/**
 * What the network suites beyond the stream socket contract ({@link StreamSuite}) share: the cell,
 * its loops, servers and connections opened over the cell's transport, and waiting on a loop with a
 * watchdog. Everything runs on 127.0.0.1.
 */
public abstract class NetSuite {
    /** The most any single wait in these tests may take before it counts as a hang. */
    protected static final Duration PATIENCE = Duration.ofSeconds(20);
    protected static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    /** Errors the loops of this test handed to their exception handler (not assertion failures). */
    protected final List<String> reported = new CopyOnWriteArrayList<>();

    /** The options of the cell under test. */
    protected LoopOptions options() {
        return cell.options();
    }

    /** A loop of the cell, closed after the test; what reaches its exception handler is kept in {@link #reported}. */
    protected Loop open() {
        Loop loop = loops.open(options());
        var next = loop.exceptionHandler();
        loop.setExceptionHandler((l, message, error, source) -> {
            reported.add(message + (error == null ? "" : ": " + error));
            next.handle(l, message, error, source);
        });
        return loop;
    }

    /**
     * True in one cell per backend (its first timer strategy and task mechanism): the costliest
     * checks run there in full and at a smaller size in the other cells, so every backend runs every
     * check without the whole matrix paying for each at full size.
     */
    protected boolean fullSize() {
        return cell.timers().equals(Matrix.timers().get(0))
                && (cell.mechanism() == null || cell.mechanism().equals(Matrix.mechanisms().get(0)))
                && (cell.transport() == null || cell.transport().equals(Matrix.transports().get(0)));
    }

    /**
     * Skips the check where the backend's sockets are not the kernel's (a simulated network): it
     * needs a JDK socket as the peer, or counts the process's descriptors.
     */
    protected void assumeKernelSockets(String why) {
        org.junit.jupiter.api.Assumptions.assumeTrue(Matrix.kernelSockets(cell.backend()),
                "backend " + cell.backend() + " has no kernel sockets: " + why);
    }

    // ------------------------------------------------------------------ endpoints, per transport

    /** Listens for the transport under test, on a free loopback address. */
    protected Server listen(Loop loop, ServerOptions options, Consumer<Connection> onAccept) throws IOException {
        return switch (cell.transport()) {
            case "tcp" -> Net.listen(loop, ANY_PORT, options, onAccept);
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    protected Server listen(Loop loop, Consumer<Connection> onAccept) throws IOException {
        return listen(loop, ServerOptions.defaults(), onAccept);
    }

    /** Connects to {@code server} over the transport under test. */
    protected LoopFuture<Connection> connect(Loop loop, Server server, ConnectionOptions options) {
        return switch (cell.transport()) {
            case "tcp" -> Net.connect(loop, server.localAddress(), options);
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    protected LoopFuture<Connection> connect(Loop loop, Server server) {
        return connect(loop, server, ConnectionOptions.defaults());
    }

    // ------------------------------------------------------------------ waiting

    /** Runs the loop until {@code f} is done, failing the test after {@link #PATIENCE}. */
    protected static <T> T await(Loop loop, LoopFuture<T> f) {
        return Waits.await(loop, f, PATIENCE);
    }

    /** Runs the loop until {@code f} is done and returns its exception. */
    protected static Throwable awaitFailure(Loop loop, LoopFuture<?> f) {
        return Waits.awaitFailure(loop, f, PATIENCE);
    }

    /** Runs the loop until {@code condition} holds (checked every few milliseconds), failing after {@link #PATIENCE}. */
    protected static void awaitTrue(Loop loop, String what, Supplier<Boolean> condition) {
        Promise<Void> done = loop.newPromise();
        Runnable[] check = new Runnable[1];
        check[0] = () -> {
            if (condition.get()) {
                done.tryComplete(null);
            } else {
                loop.callLater(Duration.ofMillis(5), check[0]);
            }
        };
        loop.callSoon(check[0]);
        TimerHandle watchdog = loop.callLater(PATIENCE, loop::stop);
        try {
            loop.runUntilComplete(done);
        } catch (IllegalStateException stopped) {
            throw new AssertionError("still waiting after " + PATIENCE.toSeconds() + " s for " + what, stopped);
        } finally {
            watchdog.cancel();
        }
    }

    /** Runs the loop for {@code d} of real time. */
    protected static void runFor(Loop loop, Duration d) {
        Promise<Void> done = loop.newPromise();
        loop.callLater(d, () -> done.complete(null));
        loop.runUntilComplete(done);
    }

    /** Runs {@code iterations} loop iterations. */
    protected static void spin(Loop loop, int iterations) {
        Waits.spin(loop, iterations);
    }
}
