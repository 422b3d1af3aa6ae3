package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.net.TlsContexts;
import dev.loop.testkit.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        assertTrue(wrongPassword.getMessage().contains(id.pkcs12().toString()), wrongPassword.getMessage());
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
