package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An established TLS connection: what it reports (ALPN, the session, client certificates, the
 * context picked by SNI), delegated tasks off the loop, close_notify on close and shutdownOutput
 * but not on abort, and a loop group serving TLS on every loop.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tls")
public class TlsSessionContract extends TlsSuite {

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
