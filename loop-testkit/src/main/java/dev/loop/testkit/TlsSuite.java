package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.TlsOptions;
import dev.loop.LoopOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;

/**
 * What the suites of what only TLS has share, on every backend with sockets ({@link Matrix#tls()}):
 * the cell, its loops (with the test certificates warmed up), TLS servers and clients with the
 * suite's certificate, plaintext ones to meet them, and the loop's reports. Waiting is
 * {@link StreamSuite}'s. Everything the plain connection contract says is checked over TLS by the
 * {@code Net*Contract} suites; peers written elsewhere (the JDK's {@code SSLSocket}) are in
 * {@link TlsJdkPeerContract}.
 */
public abstract class TlsSuite {
    static final Duration SHORT = Duration.ofMillis(300);
    static final InetSocketAddress ANY_PORT = StreamSuite.ANY_PORT;

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    @BeforeEach
    void warmUp() {
        TestCertificates.warmUp();
    }

    protected LoopOptions options() {
        return cell.options();
    }

    protected Loop open() {
        return loops.open(options());
    }

    protected static <T> T await(Loop loop, LoopFuture<T> f) {
        return StreamSuite.await(loop, f);
    }

    protected static Throwable awaitFailure(Loop loop, LoopFuture<?> f) {
        return StreamSuite.awaitFailure(loop, f);
    }

    protected static void spin(Loop loop, int iterations) {
        StreamSuite.spin(loop, iterations);
    }

    protected static LoopFuture<byte[]> readAll(Connection c) {
        return StreamSuite.readAll(c);
    }

    /** A TLS echo server with the suite's certificate. */
    protected Server echoServer(Loop loop) throws IOException {
        return Net.listen(loop, ANY_PORT, ServerOptions.defaults(), TestCertificates.server(),
                c -> c.setHandler((conn, data) -> conn.write(data)));
    }

    /** A TLS client of {@code server}, trusting the suite's certificate. */
    protected LoopFuture<Connection> connect(Loop loop, Server server) {
        return tlsConnect(loop, server, TestCertificates.clientOptions());
    }

    /** The loop's exception handler's reports from now on (an assertion failing in a callback still fails the test). */
    protected static Reports reports(Loop loop) {
        Reports r = new Reports(loop);
        var previous = loop.exceptionHandler();
        loop.setExceptionHandler((l, message, error, source) -> {
            r.add(message + (error == null ? "" : ": " + causes(error)));
            if (error instanceof AssertionError) {
                previous.handle(l, message, error, source);
            }
        });
        return r;
    }

    /** Reports of one loop, and a future of the first. */
    protected static final class Reports {
        final List<String> all = new CopyOnWriteArrayList<>();
        final Promise<String> first;

        Reports(Loop loop) {
            first = loop.newPromise();
        }

        void add(String s) {
            all.add(s);
            first.tryComplete(s);
        }
    }

    /** The messages of {@code e} and its causes, one string. */
    protected static String causes(Throwable e) {
        StringBuilder s = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            s.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" / ");
        }
        return s.toString();
    }

    protected static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    protected static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    protected Server plainListen(Loop loop, java.util.function.Consumer<Connection> onAccept) throws IOException {
        return Net.listen(loop, ANY_PORT, onAccept);
    }

    protected LoopFuture<Connection> tlsConnect(Loop loop, Server server, TlsOptions tls) {
        return Net.connect(loop, server.localAddress(), ConnectionOptions.defaults(), tls);
    }

    /** A round trip of one line through an echo server, proving the connection still works. */
    protected static void assertEchoes(Loop loop, Connection c, String line) {
        c.write(ascii(line + "\n"));
        assertEquals(line, await(loop, c.readLine(1000)));
    }
}
