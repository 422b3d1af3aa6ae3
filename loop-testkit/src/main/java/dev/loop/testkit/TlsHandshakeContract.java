package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.TlsOptions;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.security.cert.CertificateExpiredException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Handshakes that fail say what went wrong and with whom, without harming other connections:
 * timeouts on either side, plaintext peers, a truncated handshake, untrusted or expired
 * certificates and the wrong host name.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tls")
public class TlsHandshakeContract extends TlsSuite {

    /**
     * Makes the certificates this suite needs besides the usual ones before the timed tests: the first
     * JVM on a machine (see {@link TestCertificates}) makes the expired one and its authority with three
     * {@code keytool} calls, which on a busy machine took more than a test's 20 s.
     */
    @BeforeEach
    void makeCertificatesFirst() {
        TestCertificates.expired();
        TestCertificates.untrusted();
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
        untilNoConnectionIsOpen(loop); // the server's side closes when the end of stream reaches it
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
        untilNoConnectionIsOpen(loop);
        if (before >= 0) {
            assertEquals(before, Fds.count(), "file descriptors leaked");
        }
    }

    /**
     * Runs the loop until every connection it opened, on either side, is closed again (a peer's
     * side closes only once the other's end of stream reaches it, a number of iterations no test
     * can know), then a few iterations more for the closes themselves; at most 10 s.
     */
    private static void untilNoConnectionIsOpen(Loop loop) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (loop.metrics().connectionsOpen() > 0 && System.nanoTime() - end < 0) {
            spin(loop, 1);
        }
        spin(loop, 3);
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
}
