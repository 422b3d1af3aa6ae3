package dev.loop.net;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * What a TLS handshake agreed on, as {@link Connection#tls()} reports it. Immutable.
 *
 * @param protocol            the protocol version, e.g. {@code TLSv1.3}
 * @param cipherSuite         the cipher suite, e.g. {@code TLS_AES_128_GCM_SHA256}
 * @param applicationProtocol the ALPN protocol agreed on, or null if none was
 * @param serverName          the SNI host name: the one sent (client) or asked for (server); null if none
 * @param peerCertificates    the peer's chain, its own certificate first; empty if it sent none
 *                            (a client, unless asked for one)
 * @param session             the JDK's session, for anything else
 */
public record TlsInfo(String protocol, String cipherSuite, String applicationProtocol, String serverName,
                      List<Certificate> peerCertificates, SSLSession session) {

    public TlsInfo {
        peerCertificates = List.copyOf(peerCertificates);
    }

    /** What {@code engine} agreed on, once its handshake finished. */
    public static TlsInfo of(SSLEngine engine) {
        SSLSession s = engine.getSession();
        String alpn = engine.getApplicationProtocol();
        List<Certificate> peer;
        try {
            peer = List.of(s.getPeerCertificates());
        } catch (SSLPeerUnverifiedException none) {
            peer = List.of();
        }
        return new TlsInfo(s.getProtocol(), s.getCipherSuite(), alpn == null || alpn.isEmpty() ? null : alpn,
                serverName(engine, s), peer, s);
    }

    /**
     * What was agreed and who the peer is, in one short line: the protocol, the cipher suite, ALPN
     * and SNI when there were any, and the subject of the peer's certificate, never the
     * certificates or the session themselves (a record's default would print every certificate
     * whole, several kilobytes per log line).
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("TlsInfo[").append(protocol).append(", ").append(cipherSuite);
        if (applicationProtocol != null) {
            b.append(", ALPN ").append(applicationProtocol);
        }
        if (serverName != null) {
            b.append(", SNI ").append(serverName);
        }
        b.append(", peer ").append(peerCertificates.isEmpty() ? "sent no certificate" : subject(peerCertificates.get(0)));
        return b.append(']').toString();
    }

    private static String subject(Certificate c) {
        return c instanceof X509Certificate x ? x.getSubjectX500Principal().getName() : "a " + c.getType() + " certificate";
    }

    private static String serverName(SSLEngine engine, SSLSession s) {
        List<SNIServerName> names = engine.getUseClientMode() ? engine.getSSLParameters().getServerNames()
                : s instanceof ExtendedSSLSession x ? x.getRequestedServerNames() : List.of();
        for (SNIServerName n : names == null ? List.<SNIServerName>of() : names) {
            if (n instanceof SNIHostName h) {
                return h.getAsciiName();
            }
        }
        return null;
    }
}
