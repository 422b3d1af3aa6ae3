package dev.loop.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TlsInfo#toString()} fits a log line: what was agreed and who the peer is, no certificate dumps. */
class TlsInfoTest {

    @Test
    void namesTheAgreementAndThePeersSubjectOnly() throws Exception {
        X509Certificate cert = anyCertificate();
        TlsInfo info = new TlsInfo("TLSv1.3", "TLS_AES_128_GCM_SHA256", "h2", "example.com", List.of(cert), null);
        String s = info.toString();
        assertEquals("TlsInfo[TLSv1.3, TLS_AES_128_GCM_SHA256, ALPN h2, SNI example.com, peer "
                + cert.getSubjectX500Principal().getName() + "]", s);
        assertFalse(s.contains(cert.toString()), "the certificate is not printed whole");
        assertTrue(s.length() < 300, s);
    }

    @Test
    void leavesOutWhatWasNotAgreed() {
        TlsInfo info = new TlsInfo("TLSv1.2", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", null, null, List.of(), null);
        assertEquals("TlsInfo[TLSv1.2, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, peer sent no certificate]", info.toString());
    }

    /** A real X.509 certificate without making one: the JDK's own trust store has plenty. */
    private static X509Certificate anyCertificate() throws Exception {
        Path cacerts = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");
        KeyStore ks = KeyStore.getInstance(cacerts.toFile(), (char[]) null);
        for (String alias : Collections.list(ks.aliases())) {
            if (ks.getCertificate(alias) instanceof X509Certificate x) {
                return x;
            }
        }
        throw new AssertionError("no certificate in " + cacerts);
    }
}
