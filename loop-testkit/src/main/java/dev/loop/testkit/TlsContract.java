package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.TlsInfo;
import dev.loop.net.TlsOptions;
import dev.loop.LoopOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateExpiredException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What only TLS has, on every backend with sockets ({@link Matrix#tls()}): handshake failures that
 * say what went wrong and with whom (certificates, host names, plaintext peers, timeouts, a
 * truncated handshake) without harming other connections; close_notify; ALPN, SNI, client
 * certificates and what the connection reports of them; STARTTLS; key updates; renegotiation
 * refused. Everything the plain connection contract says is checked over TLS by {@link NetContract}.
 * Peers written elsewhere (the JDK's {@code SSLSocket}) are in {@link TlsJdkPeerContract}.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tls")
public class TlsContract {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final InetSocketAddress ANY_PORT = NetContract.ANY_PORT;

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
        return NetContract.await(loop, f);
    }

    protected static Throwable awaitFailure(Loop loop, LoopFuture<?> f) {
        return NetContract.awaitFailure(loop, f);
    }

    protected static void spin(Loop loop, int iterations) {
        NetContract.spin(loop, iterations);
    }

    protected static LoopFuture<byte[]> readAll(Connection c) {
        return NetContract.readAll(c);
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

    // ------------------------------------------------------------------ handshake failures

    @Test
    void aClientHandshakeTimesOutAgainstASilentServerNamingIt() throws Exception {
        Loop loop = open();
        Server silent = plainListen(loop, c -> { });
        Throwable e = awaitFailure(loop, tlsConnect(loop, silent, TestCertificates.clientOptions().withHandshakeTimeout(SHORT)));
        assertInstanceOf(SSLHandshakeException.class, e, causes(e));
        assertTrue(e.getMessage().contains("timed out after 300 ms") && e.getMessage().contains(silent.localAddress().toString()),
                e.getMessage());
        assertInstanceOf(SocketTimeoutException.class, e.getCause());
    }

    @Test
    void aServerHandshakeTimesOutOnASilentClientAndReportsIt() throws Exception {
        Loop loop = open();
        Reports reports = reports(loop);
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), TestCertificates.server().withHandshakeTimeout(SHORT),
                c -> { throw new AssertionError("a connection that never finished its handshake was accepted"); });
        Connection silent = await(loop, Net.connect(loop, server.localAddress()));
        String report = await(loop, reports.first);
        assertTrue(report.contains("timed out") && report.contains(silent.localAddress().toString()), report);
        assertEquals(-1, (int) await(loop, silent.read(ByteBuffer.allocate(10))), "the server closed it");
        assertEquals(List.of(), server.connections());
    }

    @Test
    void aPlaintextClientOnATlsPortFailsAloneAndLeaksNothing() throws Exception {
        Loop loop = open();
        Reports reports = reports(loop);
        Server server = echoServer(loop);
        Connection good = await(loop, connect(loop, server));
        assertEchoes(loop, good, "before");
        long before = Fds.count();
        Connection plain = await(loop, Net.connect(loop, server.localAddress()));
        plain.write(ascii("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
        String report = await(loop, reports.first);
        assertTrue(report.contains("not TLS") && report.contains("GET / HTTP/1.1")
                && report.contains(plain.localAddress().toString()), report);
        LoopFuture<Integer> end = plain.read(ByteBuffer.allocate(100));
        await(loop, LoopFuture.any(loop, List.of(end, plain.closeFuture())));
        assertTrue(end.isFailed() || end.result() == -1, "the server closed the plaintext client");
        plain.close();
        assertEchoes(loop, good, "after");
        spin(loop, 3);
        if (before >= 0) {
            assertEquals(before, Fds.count(), "file descriptors leaked");
        }
    }

    @Test
    void aTlsClientOnAPlaintextPortFailsNamingWhatItGot() throws Exception {
        Loop loop = open();
        Server banner = plainListen(loop, c -> c.write(ascii("220 mail.example ESMTP ready\r\n")));
        Throwable e = awaitFailure(loop, tlsConnect(loop, banner, TestCertificates.clientOptions()));
        assertInstanceOf(SSLHandshakeException.class, e);
        assertTrue(e.getMessage().contains(banner.localAddress().toString()) && e.getMessage().contains("not TLS")
                && e.getMessage().contains("220 mail.example"), e.getMessage());
        Server echo = plainListen(loop, c -> c.setHandler((conn, data) -> conn.write(data))); // sends our ClientHello back
        Throwable back = awaitFailure(loop, tlsConnect(loop, echo, TestCertificates.clientOptions()));
        assertInstanceOf(SSLHandshakeException.class, back, causes(back));
        assertTrue(back.getMessage().contains(echo.localAddress().toString()), back.getMessage());
    }

    @Test
    void aTruncatedHandshakeFailsNamingThePeerAndLeaksNothing() throws Exception {
        Loop loop = open();
        Reports reports = reports(loop);
        Server server = echoServer(loop);
        await(loop, connect(loop, server)).close(); // warm up the server's path
        spin(loop, 3);
        long before = Fds.count();
        SSLEngine engine = TestCertificates.clientOptions().context().createSSLEngine();
        engine.setUseClientMode(true);
        ByteBuffer hello = ByteBuffer.allocate(64 * 1024);
        engine.wrap(ByteBuffer.allocate(0), hello);
        hello.flip().limit(40); // the record header and part of the ClientHello, then the end
        Connection c = await(loop, Net.connect(loop, server.localAddress()));
        c.write(hello);
        c.shutdownOutput();
        String report = await(loop, reports.first);
        assertTrue(report.contains("closed the connection during the handshake")
                && report.contains(c.localAddress().toString()), report);
        c.close();
        spin(loop, 3);
        if (before >= 0) {
            assertEquals(before, Fds.count(), "file descriptors leaked");
        }
    }

    // ------------------------------------------------------------------ certificates and names

    @Test
    void anUntrustedCertificateFailsBothSidesWithTheReason() throws Exception {
        Loop loop = open();
        Reports reports = reports(loop);
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(),
                TlsOptions.of(TestCertificates.untrusted().context()), c -> { });
        Throwable e = awaitFailure(loop, tlsConnect(loop, server, TestCertificates.clientOptions()));
        assertInstanceOf(SSLHandshakeException.class, e);
        assertTrue(e.getMessage().contains(server.localAddress().toString()) && causes(e).contains("PKIX"), causes(e));
        String report = await(loop, reports.first);
        assertTrue(report.contains("alert"), "the server learns why from the client's alert: " + report);
    }

    @Test
    void anExpiredCertificateFails() throws Exception {
        Loop loop = open();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(),
                TlsOptions.of(TestCertificates.expired().context()), c -> { });
        Throwable e = awaitFailure(loop, tlsConnect(loop, server, TlsOptions.of(TestCertificates.authority().trustedBy())));
        assertInstanceOf(SSLHandshakeException.class, e);
        assertTrue(hasCause(e, CertificateExpiredException.class), causes(e));
    }

    @Test
    void theWrongHostNameFailsNamingItUnlessVerificationIsOff() throws Exception {
        Loop loop = open();
        Server server = echoServer(loop);
        Throwable e = awaitFailure(loop, tlsConnect(loop, server, TestCertificates.clientOptions().withServerName("wrong.example")));
        assertInstanceOf(SSLHandshakeException.class, e);
        assertTrue(e.getMessage().contains("wrong.example") && e.getMessage().contains(server.localAddress().toString()),
                e.getMessage());
        Connection c = await(loop, tlsConnect(loop, server,
                TestCertificates.clientOptions().withServerName("wrong.example").withHostnameVerification(false)));
        assertEchoes(loop, c, "unverified but encrypted");
        assertEquals("wrong.example", c.tls().serverName());
    }

    // ------------------------------------------------------------------ what the connection reports

    @Test
    void alpnAndTheSessionAreReportedOnBothSides() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(),
                TestCertificates.server().withApplicationProtocols("h2", "http/1.1"), accepted::tryComplete);
        Connection client = await(loop, tlsConnect(loop, server,
                TestCertificates.clientOptions().withServerName("localhost").withApplicationProtocols("http/1.1")));
        Connection conn = await(loop, accepted);
        TlsInfo c = client.tls();
        TlsInfo s = conn.tls();
        assertEquals("http/1.1", c.applicationProtocol());
        assertEquals("http/1.1", s.applicationProtocol());
        assertEquals("TLSv1.3", c.protocol());
        assertEquals(c.cipherSuite(), s.cipherSuite());
        assertEquals("localhost", s.serverName(), "the server saw the name by SNI");
        X509Certificate peer = (X509Certificate) c.peerCertificates().get(0);
        assertTrue(peer.getSubjectX500Principal().getName().contains("CN=localhost"), peer.toString());
        assertEquals(List.of(), s.peerCertificates(), "no client certificate was asked for");
        Connection h2 = await(loop, tlsConnect(loop, server, TestCertificates.clientOptions().withApplicationProtocols("h2", "http/1.1")));
        assertEquals("h2", h2.tls().applicationProtocol(), "the server's preference");
        Connection none = await(loop, tlsConnect(loop, server, TestCertificates.clientOptions()));
        assertNull(none.tls().applicationProtocol());
    }

    @Test
    void clientCertificatesRequiredOptionalAndReported() throws Exception {
        Loop loop = open();
        Reports reports = reports(loop);
        TestCertificates.Identity client = TestCertificates.client();
        TlsOptions required = TlsOptions.of(TestCertificates.localhost().contextTrusting(client))
                .withClientAuth(TlsOptions.ClientAuth.REQUIRED);
        Promise<Connection> accepted = loop.newPromise();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), required, accepted::complete);
        TlsOptions withCert = TlsOptions.of(client.contextTrusting(TestCertificates.localhost()));
        Connection mutual = await(loop, tlsConnect(loop, server, withCert));
        X509Certificate seen = (X509Certificate) await(loop, accepted).tls().peerCertificates().get(0);
        assertTrue(seen.getSubjectX500Principal().getName().contains("CN=client"), seen.toString());
        mutual.close();
        // without a certificate: TLS 1.3 clients finish first, so the refusal arrives as an alert on the first read
        LoopFuture<Connection> anonymous = tlsConnect(loop, server, TestCertificates.clientOptions());
        Throwable e = anonymous.isDone() && anonymous.isFailed() ? anonymous.exception() : null;
        if (e == null) {
            Promise<Throwable> failed = loop.newPromise();
            anonymous.onDone(f -> {
                if (!f.isSuccess()) {
                    failed.tryComplete(f.exception());
                } else {
                    f.result().read(ByteBuffer.allocate(10)).onDone(r -> failed.tryComplete(r.exception()));
                }
            });
            e = await(loop, failed);
        }
        assertInstanceOf(SSLException.class, e, "an alert, not a quiet end: " + e);
        assertTrue(await(loop, reports.first).contains("certificate"), reports.all.toString());
        TlsOptions optional = required.withClientAuth(TlsOptions.ClientAuth.OPTIONAL);
        Promise<Connection> acceptedOptional = loop.newPromise();
        Server lenient = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), optional, acceptedOptional::complete);
        await(loop, tlsConnect(loop, lenient, TestCertificates.clientOptions()));
        assertEquals(List.of(), await(loop, acceptedOptional).tls().peerCertificates());
    }

    @Test
    void theServerPicksItsContextByTheNameTheClientAsksFor() throws Exception {
        Loop loop = open();
        TestCertificates.Identity a = TestCertificates.forHost("a.test");
        TestCertificates.Identity wild = TestCertificates.forHost("x.b.test");
        TlsOptions sni = TestCertificates.server().withServerContext("a.test", a.context())
                .withServerContext("*.b.test", wild.context());
        List<String> seen = new CopyOnWriteArrayList<>();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), sni, c -> seen.add(c.tls().serverName()));
        Connection toA = await(loop, tlsConnect(loop, server, TlsOptions.of(a.trustedBy()).withServerName("a.test")));
        assertEquals("CN=a.test", subject(toA));
        Connection toWild = await(loop, tlsConnect(loop, server, TlsOptions.of(wild.trustedBy()).withServerName("x.b.test")));
        assertEquals("CN=x.b.test", subject(toWild));
        Connection byAddress = await(loop, tlsConnect(loop, server, TestCertificates.clientOptions())); // no SNI for an IP
        assertEquals("CN=localhost", subject(byAddress));
        spin(loop, 3);
        assertTrue(seen.containsAll(List.of("a.test", "x.b.test")), seen.toString());
    }

    private static String subject(Connection c) {
        return ((X509Certificate) c.tls().peerCertificates().get(0)).getSubjectX500Principal().getName();
    }

    @Test
    void delegatedTasksRunOnTheGivenExecutorOffTheLoop() throws Exception {
        Loop loop = open();
        AtomicInteger tasks = new AtomicInteger();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        Executor counting = r -> Thread.ofPlatform().start(() -> {
            tasks.incrementAndGet();
            threads.add(Thread.currentThread());
            r.run();
        });
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), TestCertificates.server().withTaskExecutor(counting),
                c -> c.setHandler((conn, data) -> conn.write(data)));
        Connection c = await(loop, tlsConnect(loop, server, TestCertificates.clientOptions().withTaskExecutor(counting)));
        assertEchoes(loop, c, "tasks elsewhere");
        assertTrue(tasks.get() >= 2, "both sides ran delegated tasks on the executor: " + tasks.get());
        Thread loopThread = Thread.currentThread(); // the loop runs on the test's thread
        assertFalse(threads.contains(loopThread));
    }

    // ------------------------------------------------------------------ closing

    @Test
    void closeAndShutdownOutputSendCloseNotifyAndAbortDoesNot() throws Exception {
        Loop loop = open();
        TlsOptions tls12 = TestCertificates.server().withProtocols("TLSv1.2"); // TLS 1.2 shows alerts as alerts on the wire
        Promise<Connection> accepted = loop.newPromise();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), tls12, accepted::complete);
        TlsRecordingProxy proxy = TlsRecordingProxy.start(loop, server.localAddress());
        TlsOptions client12 = TestCertificates.clientOptions().withProtocols("TLSv1.2");
        Connection client = await(loop, Net.connect(loop, proxy.address(), ConnectionOptions.defaults(), client12));
        Connection conn = await(loop, accepted);
        conn.write(ascii("bye"));
        conn.close();
        assertArrayEquals(ascii("bye"), await(loop, readAll(client)));
        assertEquals(21, proxy.lastRecordType(false), "the server's last record is an alert (close_notify)");
        // half-close from the client
        Promise<Connection> second = loop.newPromise();
        Server server2 = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), tls12, second::complete);
        TlsRecordingProxy proxy2 = TlsRecordingProxy.start(loop, server2.localAddress());
        Connection client2 = await(loop, Net.connect(loop, proxy2.address(), ConnectionOptions.defaults(), client12));
        Connection conn2 = await(loop, second);
        client2.write(ascii("hi"));
        client2.shutdownOutput();
        assertArrayEquals(ascii("hi"), await(loop, readAll(conn2)));
        assertEquals(21, proxy2.lastRecordType(true), "the client's last record is close_notify");
        // abort: the last record is data, and the peer sees a reset rather than an orderly end
        Promise<Connection> third = loop.newPromise();
        Server server3 = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), tls12, third::complete);
        TlsRecordingProxy proxy3 = TlsRecordingProxy.start(loop, server3.localAddress());
        await(loop, Net.connect(loop, proxy3.address(), ConnectionOptions.defaults(), client12));
        Connection conn3 = await(loop, third);
        conn3.write(ascii("x"));
        spin(loop, 3);
        conn3.abort();
        await(loop, proxy3.upstreamEnded());
        assertEquals(23, proxy3.lastRecordType(false), "no close_notify after abort");
    }

    // ------------------------------------------------------------------ STARTTLS

    @Test
    void startTlsWithTheClientHelloRightBehindTheCommand() throws Exception {
        Loop loop = open();
        Promise<String> secret = loop.newPromise();
        Server server = plainListen(loop, c -> loop.callLater(Duration.ofMillis(50), () -> // both arrive before the read
                c.readLine(100).onDone(cmd -> {
                    assertEquals("STARTTLS", cmd.result());
                    c.startTls(TestCertificates.server()).onDone(up -> c.readLine(100).onDone(line -> {
                        c.write(ascii("got " + line.result() + "\n"));
                        secret.complete(line.result());
                    }));
                })));
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        client.write(ascii("STARTTLS\n"));
        LoopFuture<Connection> upgraded = client.startTls(TestCertificates.clientOptions());
        client.write(ascii("secret\n")); // written during the handshake: waits for it, then goes encrypted
        assertEquals(client, await(loop, upgraded));
        assertEquals("secret", await(loop, secret));
        assertEquals("got secret", await(loop, client.readLine(100)));
        assertEquals("TLSv1.3", client.tls().protocol());
    }

    @Test
    void startTlsSendsWhatWasQueuedBeforeItInPlaintextFirst() throws Exception {
        Loop loop = open();
        byte[] plain = NetContract.randomBytes(new Random(7), 4 << 20); // more than the kernel takes at once: it is queued
        Server server = plainListen(loop, c -> {
            c.write(plain);
            c.startTls(TestCertificates.server()).onDone(up -> c.setHandler((conn, data) -> conn.write(data)));
        });
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        ByteBuffer got = await(loop, client.readExactly(plain.length));
        assertArrayEquals(plain, got.array());
        await(loop, client.startTls(TestCertificates.clientOptions()));
        assertEchoes(loop, client, "encrypted now");
    }

    @Test
    void startTlsIsRefusedWhileAReadIsPendingOrOnTls() throws Exception {
        Loop loop = open();
        Server server = plainListen(loop, c -> { });
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        LoopFuture<Integer> pending = client.read(ByteBuffer.allocate(10));
        assertThrows(IllegalStateException.class, () -> client.startTls(TestCertificates.clientOptions()));
        assertFalse(pending.isDone(), "the refused call changed nothing");
        Server tls = echoServer(loop);
        Connection secure = await(loop, connect(loop, tls));
        assertThrows(IllegalStateException.class, () -> secure.startTls(TestCertificates.clientOptions()));
    }

    @Test
    void aFailedStartTlsFailsItsFutureAndClosesTheConnection() throws Exception {
        Loop loop = open();
        Server server = plainListen(loop, c -> c.startTls(TlsOptions.of(TestCertificates.untrusted().context())));
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        Throwable e = awaitFailure(loop, client.startTls(TestCertificates.clientOptions()));
        assertInstanceOf(SSLHandshakeException.class, e);
        await(loop, client.closeFuture());
        assertFalse(client.isOpen());
    }

    @Test
    void aGroupServesTlsOnEveryLoop() throws Exception {
        try (dev.loop.LoopGroup group = dev.loop.LoopGroup.open(2, options())) {
            var server = Net.listen(group, ANY_PORT, ServerOptions.defaults(), TestCertificates.server(),
                    c -> c.setHandler((conn, data) -> conn.write(data)));
            Loop loop = open();
            for (int i = 0; i < 4; i++) {
                Connection c = await(loop, tlsConnect(loop, server.servers().get(0), TestCertificates.clientOptions()));
                assertEchoes(loop, c, "connection " + i);
                assertNotNull(c.tls());
                c.close();
            }
            server.close();
        }
    }
}
