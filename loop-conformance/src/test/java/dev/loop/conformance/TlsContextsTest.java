package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.net.TlsContexts;
import dev.loop.testkit.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Contexts from the files servers have, and errors that name the file and what is wrong with it. */
class TlsContextsTest {
    @TempDir
    Path dir;

    @Test
    void pemAndPkcs12MakeContextsThatPresentTheirCertificate() throws Exception {
        TestCertificates.Identity id = TestCertificates.localhost();
        for (SSLContext ctx : new SSLContext[] {TlsContexts.fromPem(id.certificate(), id.privateKey()),
                TlsContexts.fromPkcs12(id.pkcs12(), "changeit".toCharArray())}) {
            SSLEngine server = ctx.createSSLEngine();
            server.setUseClientMode(false);
            assertTrue(server.getSupportedCipherSuites().length > 0);
            assertEquals("TLS", ctx.getProtocol());
        }
        TlsContexts.trusting(id.certificate());
    }

    @Test
    void aMissingOrWrongFileIsNamed() throws Exception {
        TestCertificates.Identity id = TestCertificates.localhost();
        Path missing = dir.resolve("missing.pem");
        IOException e = assertThrows(IOException.class, () -> TlsContexts.fromPem(missing, id.privateKey()));
        assertTrue(e.getMessage().contains("missing.pem"), e.getMessage());
        Path notCert = Files.writeString(dir.resolve("not-a-cert.pem"), "hello\n");
        e = assertThrows(IOException.class, () -> TlsContexts.trusting(notCert));
        assertTrue(e.getMessage().contains("not-a-cert.pem"), e.getMessage());
        IOException wrongPassword = assertThrows(IOException.class,
                () -> TlsContexts.fromPkcs12(id.pkcs12(), "wrong".toCharArray()));
        assertTrue(wrongPassword.getMessage().contains(id.pkcs12().toString())
                && wrongPassword.getMessage().contains("wrong password"), wrongPassword.getMessage());
        Path missingKey = dir.resolve("missing.key");
        e = assertThrows(IOException.class, () -> TlsContexts.fromPem(id.certificate(), missingKey));
        assertTrue(e.getMessage().contains("no private key file at " + missingKey.toAbsolutePath()), e.getMessage());
        Path missingStore = dir.resolve("missing.p12");
        e = assertThrows(IOException.class, () -> TlsContexts.fromPkcs12(missingStore, "changeit".toCharArray()));
        assertTrue(e.getMessage().contains("no PKCS#12 store at " + missingStore.toAbsolutePath()), e.getMessage());
        Path badPem = Files.writeString(dir.resolve("bad.pem"),
                "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
        e = assertThrows(IOException.class, () -> TlsContexts.fromPem(badPem, id.privateKey()));
        assertTrue(e.getMessage().contains("bad.pem"), e.getMessage());
    }

    @Test
    void aPkcs12AliasIsPickedOrNamedWhenAbsent() throws Exception {
        char[] pw = "changeit".toCharArray();
        KeyStore a = load(TestCertificates.localhost().pkcs12(), pw);
        KeyStore b = load(TestCertificates.untrusted().pkcs12(), pw);
        KeyStore both = KeyStore.getInstance("PKCS12");
        both.load(null, null);
        both.setKeyEntry("localhost", a.getKey("id", pw), pw, a.getCertificateChain("id"));
        both.setKeyEntry("other", b.getKey("id", pw), pw, b.getCertificateChain("id"));
        Path two = store(both, "two.p12", pw);
        SSLContext picked = TlsContexts.fromPkcs12(two, pw, "localhost");
        assertEquals("TLS", picked.getProtocol());
        IOException e = assertThrows(IOException.class, () -> TlsContexts.fromPkcs12(two, pw, "nope"));
        assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("two.p12")
                && e.getMessage().contains("localhost") && e.getMessage().contains("other"), e.getMessage());
        KeyStore certsOnly = KeyStore.getInstance("PKCS12");
        certsOnly.load(null, null);
        certsOnly.setCertificateEntry("ca", a.getCertificate("id"));
        Path trustOnly = store(certsOnly, "trust-only.p12", pw);
        e = assertThrows(IOException.class, () -> TlsContexts.fromPkcs12(trustOnly, pw));
        assertTrue(e.getMessage().contains("no private key") && e.getMessage().contains("trust-only.p12"), e.getMessage());
    }

    private static KeyStore load(Path file, char[] pw) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, pw);
        }
        return ks;
    }

    private Path store(KeyStore ks, String name, char[] pw) throws Exception {
        Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, pw);
        }
        return file;
    }

    @Test
    void keysInFormatsItCannotReadSayHowToConvertThem() throws Exception {
        TestCertificates.Identity id = TestCertificates.localhost();
        Path encrypted = Files.writeString(dir.resolve("enc.key"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        IOException e = assertThrows(IOException.class, () -> TlsContexts.fromPem(id.certificate(), encrypted));
        assertTrue(e.getMessage().contains("enc.key") && e.getMessage().contains("-nocrypt"), e.getMessage());
        Path pkcs1 = Files.writeString(dir.resolve("rsa.key"),
                "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        e = assertThrows(IOException.class, () -> TlsContexts.fromPem(id.certificate(), pkcs1));
        assertTrue(e.getMessage().contains("rsa.key") && e.getMessage().contains("pkcs8"), e.getMessage());
        Path garbage = Files.writeString(dir.resolve("garbage.key"),
                "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n");
        e = assertThrows(IOException.class, () -> TlsContexts.fromPem(id.certificate(), garbage));
        assertTrue(e.getMessage().contains("garbage.key"), e.getMessage());
    }

    @Test
    void aKeyThatDoesNotGoWithTheCertificateIsNamed() throws Exception {
        TestCertificates.Identity id = TestCertificates.localhost();
        TestCertificates.Identity other = TestCertificates.untrusted();
        IOException e = assertThrows(IOException.class, () -> TlsContexts.fromPem(id.certificate(), other.privateKey()));
        assertTrue(e.getMessage().contains(other.privateKey().toString()) && e.getMessage().contains("does not go with"),
                e.getMessage());
    }
}
