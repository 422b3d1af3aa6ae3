package dev.loop.net;

import java.security.cert.Certificate;
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
