package dev.loop.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

/** Options are checked when made, and become engines configured as asked. */
class TlsOptionsTest {
    @Test
    void anUnsupportedProtocolOrSuiteIsNamed() {
        IllegalArgumentException p = assertThrows(IllegalArgumentException.class,
                () -> TlsOptions.client().withProtocols("TLSv1.9"));
        assertTrue(p.getMessage().contains("TLSv1.9") && p.getMessage().contains("TLSv1.3"), p.getMessage());
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class,
                () -> TlsOptions.client().withCipherSuites("TLS_NOT_A_SUITE"));
        assertTrue(s.getMessage().contains("TLS_NOT_A_SUITE"), s.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TlsOptions.client().withHandshakeTimeout(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> TlsOptions.client().withApplicationProtocols(""));
    }

    @Test
    void aClientEngineVerifiesTheHostAndSendsItsName() throws Exception {
        InetSocketAddress named = new InetSocketAddress(InetAddress.getByAddress("example.com", new byte[] {127, 0, 0, 1}), 443);
        SSLEngine e = TlsOptions.client().withProtocols("TLSv1.3").withApplicationProtocols("h2").newEngine(true, named,
                SSLContext.getDefault());
        assertTrue(e.getUseClientMode());
        assertEquals("HTTPS", e.getSSLParameters().getEndpointIdentificationAlgorithm());
        assertEquals(List.of(new SNIHostName("example.com")), e.getSSLParameters().getServerNames());
        assertEquals(List.of("TLSv1.3"), List.of(e.getEnabledProtocols()));
        assertEquals(List.of("h2"), List.of(e.getSSLParameters().getApplicationProtocols()));
        InetSocketAddress ip = new InetSocketAddress(InetAddress.getLoopbackAddress().getHostAddress(), 443);
        SSLEngine byIp = TlsOptions.client().withHostnameVerification(false).newEngine(true, ip, SSLContext.getDefault());
        assertEquals(null, byIp.getSSLParameters().getEndpointIdentificationAlgorithm());
        assertTrue(byIp.getSSLParameters().getServerNames() == null || byIp.getSSLParameters().getServerNames().isEmpty(),
                "no SNI for an IP address");
    }

    @Test
    void aServerEngineAsksForClientCertificatesAsTold() throws Exception {
        InetSocketAddress peer = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
        TlsOptions o = TlsOptions.of(SSLContext.getDefault());
        assertTrue(o.withClientAuth(TlsOptions.ClientAuth.REQUIRED).newEngine(false, peer, o.context()).getNeedClientAuth());
        assertTrue(o.withClientAuth(TlsOptions.ClientAuth.OPTIONAL).newEngine(false, peer, o.context()).getWantClientAuth());
        SSLEngine none = o.newEngine(false, peer, o.context());
        assertFalse(none.getNeedClientAuth() || none.getWantClientAuth());
    }

    @Test
    void serverContextsMatchExactNamesThenOneWildcardLabel() throws Exception {
        SSLContext dflt = context();
        SSLContext exact = context();
        SSLContext wild = context();
        TlsOptions o = TlsOptions.of(dflt).withServerContext("A.example", exact).withServerContext("*.example", wild);
        assertSame(exact, o.contextFor("a.EXAMPLE"));
        assertSame(wild, o.contextFor("b.example"));
        assertSame(dflt, o.contextFor("x.b.example"), "a wildcard covers one label");
        assertSame(dflt, o.contextFor(null));
        assertSame(dflt, o.contextFor("other.test"));
    }

    private static SSLContext context() throws Exception {
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, null, null);
        return c;
    }

    @Test
    void onlyDnsNamesAreHostNames() {
        assertTrue(TlsOptions.isHostName("localhost"));
        assertTrue(TlsOptions.isHostName("a.example"));
        assertFalse(TlsOptions.isHostName("127.0.0.1"));
        assertFalse(TlsOptions.isHostName("::1"));
        assertFalse(TlsOptions.isHostName(null));
    }
}
