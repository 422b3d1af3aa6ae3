package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Unix;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;

/**
 * What the stream socket suites share: the cell (backend with sockets x timer strategy x task
 * mechanism x transport), its loops, listening and connecting over the transport under test (plain
 * TCP on 127.0.0.1, Unix domain sockets in a temporary directory with short paths, since
 * {@code sun_path} holds 108 bytes, and TLS on TCP with {@link TestCertificates}), waiting with a
 * watchdog, and the echo helpers; so every behaviour of a connection is also checked through the
 * TLS layer.
 */
public abstract class StreamSuite {
    /** The most any single wait in these tests may take before it counts as a hang. */
    protected static final Duration PATIENCE = Duration.ofSeconds(8);
    protected static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Parameter
    Cell cell;

    /** The backend under test. */
    protected LoopOptions options() {
        return cell.options();
    }

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    /** Where Unix domain sockets go, removed after each test. */
    @TempDir
    Path socketDir;
    private int socketCount;

    protected Loop open() {
        return loops.open(options());
    }

    /** TLS loads providers and opens files once per JVM: before a test counts descriptors. */
    @BeforeEach
    void warmUpTransport() {
        if (isTls()) {
            TestCertificates.warmUp();
        }
    }

    protected boolean isTls() {
        return "tls".equals(cell.transport());
    }

    /** Runs the loop until {@code f} is done, failing the test after {@link #PATIENCE}. */
    protected static <T> T await(Loop loop, LoopFuture<T> f) {
        return await(loop, f, PATIENCE);
    }

    /**
     * Runs the loop until {@code f} is done, failing the test after {@code patience}: for the few
     * tests whose work (megabytes through TLS on both ends, on one loop) grows with the machine's
     * load, where a fixed short bound would report a busy machine as a hang.
     */
    protected static <T> T await(Loop loop, LoopFuture<T> f, Duration patience) {
        return Waits.await(loop, f, patience);
    }

    /** Runs the loop until {@code f} is done and returns its exception. */
    protected static Throwable awaitFailure(Loop loop, LoopFuture<?> f) {
        return Waits.awaitFailure(loop, f, PATIENCE);
    }

    /** Runs {@code iterations} loop iterations. */
    protected static void spin(Loop loop, int iterations) {
        Waits.spin(loop, iterations);
    }

    // ------------------------------------------------------------------ endpoints, per transport

    /** Listens for the transport under test, on a free loopback address (a new socket path). */
    protected Server listen(Loop loop, ServerOptions options, Consumer<Connection> onAccept) throws IOException {
        return listen(loop, cell.transport().equals("unix") ? newSocketPath() : ANY_PORT, options, onAccept);
    }

    /** Listens for the transport under test on {@code address}. */
    protected Server listen(Loop loop, SocketAddress address, ServerOptions options, Consumer<Connection> onAccept)
            throws IOException {
        return switch (cell.transport()) {
            case "tcp" -> Net.listen(loop, (InetSocketAddress) address, options, onAccept);
            case "unix" -> Unix.listen(loop, address, options, onAccept);
            case "tls" -> Net.listen(loop, (InetSocketAddress) address, options, TestCertificates.server(), onAccept);
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    /** Listens on {@code address}, of the transport under test, with default options. */
    protected Server listenAt(Loop loop, SocketAddress address) throws IOException {
        return listen(loop, address, ServerOptions.defaults(), c -> { });
    }

    /** A path in this test's directory that nothing is bound to yet. */
    protected UnixDomainSocketAddress newSocketPath() {
        return UnixDomainSocketAddress.of(socketDir.resolve("s" + socketCount++));
    }

    /** An address of the transport under test where nothing listens. */
    protected SocketAddress deadAddress() throws IOException {
        return switch (cell.transport()) {
            case "tcp", "tls" -> {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    yield new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
                }
            }
            case "unix" -> newSocketPath();
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    /** Connects to {@code address} over the transport under test. */
    protected LoopFuture<Connection> connectTo(Loop loop, SocketAddress address) {
        return connect(loop, address, ConnectionOptions.defaults());
    }

    /** Skips a test of what only TCP has, saying what. */
    /**
     * Skips the check where the backend's sockets are not the kernel's (a simulated network): it
     * needs a JDK socket as the peer, or counts the process's descriptors.
     */
    protected void assumeKernelSockets(String why) {
        org.junit.jupiter.api.Assumptions.assumeTrue(Matrix.kernelSockets(cell.backend()),
                "backend " + cell.backend() + " has no kernel sockets: " + why);
    }

    protected void assumeTcp(String why) {
        Assumptions.assumeTrue(cell.transport().equals("tcp"), why);
    }

    protected Server listen(Loop loop, Consumer<Connection> onAccept) throws IOException {
        return listen(loop, ServerOptions.defaults(), onAccept);
    }

    /** Connects to {@code server} over the transport under test. */
    protected LoopFuture<Connection> connect(Loop loop, Server server, ConnectionOptions options) {
        return connect(loop, server.localSocketAddress(), options);
    }

    /** Connects to {@code address} over the transport under test. */
    protected LoopFuture<Connection> connect(Loop loop, SocketAddress address, ConnectionOptions options) {
        return switch (cell.transport()) {
            case "tcp" -> Net.connect(loop, (InetSocketAddress) address, options);
            case "unix" -> Unix.connect(loop, address, options);
            case "tls" -> Net.connect(loop, (InetSocketAddress) address, options, TestCertificates.clientOptions());
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    /** A blocking JDK client socket for the transport under test: an {@link javax.net.ssl.SSLSocket} over TLS. */
    protected Socket blockingSocket(InetSocketAddress addr) throws IOException {
        return switch (cell.transport()) {
            case "tcp" -> new Socket(addr.getAddress(), addr.getPort());
            case "tls" -> TestCertificates.clientOptions().context().getSocketFactory()
                    .createSocket(addr.getAddress(), addr.getPort());
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    protected LoopFuture<Connection> connect(Loop loop, Server server) {
        return connect(loop, server, ConnectionOptions.defaults());
    }

    /** A push-style echo server; at end of stream it closes after sending the rest. */
    protected Server echoServer(Loop loop) throws IOException {
        return listen(loop, c -> c.setHandler((conn, data) -> conn.write(data)));
    }

    /** Reads until end of stream, completing with everything read. Also for tests outside the suites. */
    public static LoopFuture<byte[]> readAll(Connection c) {
        Promise<byte[]> all = c.loop().newPromise();
        readRest(c, ByteBuffer.allocate(16 * 1024), new ByteArrayOutputStream(), all);
        return all;
    }

    private static void readRest(Connection c, ByteBuffer buf, ByteArrayOutputStream acc, Promise<byte[]> all) {
        buf.clear();
        c.read(buf).onDone(f -> {
            if (!f.isSuccess()) {
                all.tryFail(f.exception());
            } else if (f.result() < 0) {
                all.complete(acc.toByteArray());
            } else {
                acc.write(buf.array(), 0, f.result());
                readRest(c, buf, acc, all);
            }
        });
    }

    /** Writes {@code data} in chunks cut at random points, each in its own iteration, then half-closes. */
    protected static LoopFuture<Void> writeSplit(Connection c, byte[] data, Random rnd) {
        Promise<Void> done = c.loop().newPromise();
        writeFrom(c, data, 0, rnd, done);
        return done;
    }

    private static void writeFrom(Connection c, byte[] data, int at, Random rnd, Promise<Void> done) {
        if (at == data.length) {
            c.shutdownOutput();
            done.complete(null);
            return;
        }
        int n = Math.min(data.length - at, 1 + rnd.nextInt(Math.max(1, Math.min(data.length, 200_000))));
        LoopFuture<Void> w = c.write(ByteBuffer.wrap(data, at, n));
        LoopFuture<Void> next = c.isWritable() ? w : c.drain();
        next.onDone(f -> {
            if (f.isSuccess()) {
                writeFrom(c, data, at + n, rnd, done);
            } else {
                done.tryFail(f.exception());
            }
        });
    }

    /** An echo round trip of {@code data} over a new connection: what came back. */
    protected LoopFuture<byte[]> echo(Loop loop, Server server, byte[] data, Random rnd) {
        Promise<byte[]> result = loop.newPromise();
        connect(loop, server).onDone(cf -> {
            if (!cf.isSuccess()) {
                result.fail(cf.exception());
                return;
            }
            Connection c = cf.result();
            writeSplit(c, data, rnd);
            readAll(c).onDone(r -> {
                c.close();
                if (r.isSuccess()) {
                    result.complete(r.result());
                } else {
                    result.fail(r.exception());
                }
            });
        });
        return result;
    }

    protected static byte[] randomBytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }
}
