package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.cert.CertificateExpiredException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The certificate cache: made once, reused by the next JVM without {@code keytool}, made again when
 * what is cached is damaged or no longer what was asked for. Each test has a cache of its own, so it
 * sees {@code keytool} run whatever earlier builds left in the shared one.
 */
class TestCertificatesTest {
    private static final String LOCAL = "dns:localhost,ip:127.0.0.1";

    @TempDir
    Path shared;
    @TempDir
    Path work;

    @Test
    void aStoreLeftByAnInterruptedAttemptDoesNotBlockTheNextOne() throws Exception {
        String host = "stale.example";
        // What keytool leaves when it is cut short after writing the key pair: a store holding the alias.
        Files.write(work.resolve(host + ".p12"), new byte[] {1, 2, 3});
        TestCertificates.Identity id = new CertificateCache(shared, work).identity(spec(host, "dns:" + host));
        assertEquals(host, id.name());
        assertTrue(Files.readString(id.certificate()).contains("BEGIN CERTIFICATE"));
    }

    @Test
    void aSecondJvmFindsTheStoreAndRunsNoKeytool() throws Exception {
        CertificateCache first = new CertificateCache(shared, work);
        int before = CertificateCache.keytoolRuns();
        TestCertificates.Identity made = first.identity(spec("localhost", LOCAL));
        assertTrue(CertificateCache.keytoolRuns() > before, "the first load made it");
        Path store = first.storeFor(spec("localhost", LOCAL));
        Object identity = Files.readAttributes(store, BasicFileAttributes.class).fileKey();

        // The same load as every test JVM's, through TestCertificates and its default directory.
        String out = runChild(LoadInChild.class.getName());
        assertTrue(out.contains("keytoolRuns=0"), "the second JVM ran keytool: " + out);
        assertTrue(out.contains("fingerprint=" + fingerprint(made)), "another certificate: " + out);
        assertEquals(identity, Files.readAttributes(store, BasicFileAttributes.class).fileKey(), "store rewritten");
    }

    @Test
    void aTruncatedOrForeignCachedStoreIsMadeAgain() throws Exception {
        CertificateCache.Spec a = spec("a.example", "dns:a.example");
        CertificateCache.Spec b = spec("b.example", "dns:b.example");
        CertificateCache cache = new CertificateCache(shared, work);
        String madeA = fingerprint(cache.identity(a));
        cache.identity(b);
        Path storeA = cache.storeFor(a);
        byte[] good = Files.readAllBytes(storeA);

        Files.write(storeA, Arrays.copyOf(good, good.length / 2)); // a JVM killed while writing, without the cache's move
        int before = CertificateCache.keytoolRuns();
        TestCertificates.Identity again = new CertificateCache(shared, work).identity(a);
        assertEquals(1, CertificateCache.keytoolRuns() - before, "made again, with one keytool call");
        assertNotEquals(madeA, fingerprint(again));
        assertEquals(fingerprint(again), fingerprint(CertificateCache.load(Files.readAllBytes(storeA))), "cache repaired");

        // A store that loads but is for other names (b's, under a's file name) is not reused either.
        Files.copy(cache.storeFor(b), storeA, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        before = CertificateCache.keytoolRuns();
        TestCertificates.Identity third = new CertificateCache(shared, work).identity(a);
        assertEquals(1, CertificateCache.keytoolRuns() - before);
        assertEquals("CN=a.example", certificate(third).getSubjectX500Principal().getName());
    }

    @Test
    void fromTheCacheTheExpiredCertificateIsStillExpiredAndTheValidOneValid() throws Exception {
        CertificateCache cache = new CertificateCache(shared, work);
        TestCertificates.Identity authority = cache.identity(new CertificateCache.Spec("authority", null, 0, 30, null));
        cache.identity(new CertificateCache.Spec("expired", LOCAL, 10, 1, authority));
        cache.identity(spec("localhost", LOCAL));

        int before = CertificateCache.keytoolRuns();
        CertificateCache again = new CertificateCache(shared, work);
        TestCertificates.Identity ca = again.identity(new CertificateCache.Spec("authority", null, 0, 30, null));
        TestCertificates.Identity expired = again.identity(new CertificateCache.Spec("expired", LOCAL, 10, 1, ca));
        TestCertificates.Identity valid = again.identity(spec("localhost", LOCAL));
        assertEquals(0, CertificateCache.keytoolRuns() - before, "all three came from the cache");

        assertThrows(CertificateExpiredException.class, () -> certificate(expired).checkValidity());
        certificate(expired).verify(certificate(ca).getPublicKey());
        certificate(valid).checkValidity();
        certificate(ca).checkValidity();
        assertTrue(certificate(ca).getBasicConstraints() >= 0, "the authority is a CA");
    }

    @Test
    void aCachedCertificateThatIsNoLongerWhatWasAskedForIsNamed() throws Exception {
        CertificateCache cache = new CertificateCache(shared, work);
        TestCertificates.Identity valid = cache.identity(spec("localhost", LOCAL));
        var ks = CertificateCache.load(Files.readAllBytes(valid.pkcs12()));
        // The same store asked for as an expired one, or for other names: both say what is wrong.
        assertTrue(CertificateCache.mismatch(ks, new CertificateCache.Spec("localhost", LOCAL, 10, 1, null))
                .startsWith("is still valid until"));
        assertTrue(CertificateCache.mismatch(ks, spec("localhost", "dns:localhost")).startsWith("names "));
        assertEquals(null, CertificateCache.mismatch(ks, spec("localhost", LOCAL)));
    }

    private static CertificateCache.Spec spec(String name, String san) {
        return new CertificateCache.Spec(name, san, 0, 30, null);
    }

    private String runChild(String main) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "-D" + CertificateCache.DIRECTORY_PROPERTY + "=" + shared, main));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the child JVM did not finish in 60 s: " + out);
        }
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static X509Certificate certificate(TestCertificates.Identity id) throws Exception {
        return (X509Certificate) CertificateCache.load(Files.readAllBytes(id.pkcs12())).getCertificate("id");
    }

    private static String fingerprint(TestCertificates.Identity id) throws Exception {
        return CertificateCache.fingerprint(certificate(id));
    }

    private static String fingerprint(java.security.KeyStore ks) throws Exception {
        return CertificateCache.fingerprint(ks.getCertificate("id"));
    }

    /** A test JVM's first use of the certificates, in a JVM of its own. */
    static final class LoadInChild {
        public static void main(String[] args) throws Exception {
            TestCertificates.Identity id = TestCertificates.localhost();
            System.out.println("keytoolRuns=" + CertificateCache.keytoolRuns() + " fingerprint=" + fingerprint(id));
        }
    }
}
