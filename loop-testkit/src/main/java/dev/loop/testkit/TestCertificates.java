package dev.loop.testkit;

import dev.loop.net.TlsContexts;
import dev.loop.net.TlsOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;

/**
 * Certificates the TLS tests need, made at run time once per JVM with the {@code keytool} of the
 * running JDK (the JDK has no public API to make one), into a temporary directory deleted at exit.
 * Each is self-signed, EC P-256 (fast handshakes), with its key also written as an unencrypted
 * PKCS#8 PEM file for the tools that want one ({@code openssl}, {@code curl}). Nothing here is a
 * secret worth keeping.
 */
public final class TestCertificates {
    private static final String PASSWORD = "changeit";
    private static final Map<String, Identity> MADE = new ConcurrentHashMap<>();
    private static volatile Path dir;
    private static volatile boolean warm;
    private static volatile TlsOptions server;
    private static volatile TlsOptions client;

    /**
     * One certificate with its key.
     *
     * @param certificate the certificate, PEM
     * @param privateKey  its key, PKCS#8 PEM
     * @param pkcs12      both, in a PKCS#12 store with password {@code changeit}
     */
    public record Identity(String name, Path certificate, Path privateKey, Path pkcs12) {
        /** A context presenting this identity and trusting what the JDK trusts. */
        public SSLContext context() {
            return uncheck(() -> TlsContexts.fromPem(certificate, privateKey));
        }

        /** A context presenting this identity and trusting exactly {@code trusted}. */
        public SSLContext contextTrusting(Identity trusted) {
            return uncheck(() -> TlsContexts.fromPem(certificate, privateKey, trusted.certificate));
        }

        /** A context that trusts only this certificate. */
        public SSLContext trustedBy() {
            return uncheck(() -> TlsContexts.trusting(certificate));
        }
    }

    private TestCertificates() {
    }

    /** For {@code localhost} and {@code 127.0.0.1}: what the servers of the suites present. */
    public static Identity localhost() {
        return make("localhost", "dns:localhost,ip:127.0.0.1", null, 30);
    }

    /** Valid for the same names as {@link #localhost()}, but signed by nobody anyone trusts. */
    public static Identity untrusted() {
        return make("untrusted", "dns:localhost,ip:127.0.0.1", null, 30);
    }

    /** A certificate authority, for the certificates below that it signs. */
    public static Identity authority() {
        return MADE.computeIfAbsent("authority", n -> uncheck(() -> generate(n, null, null, 30, null)));
    }

    /**
     * For the same names as {@link #localhost()}, signed by {@link #authority()}, but its validity
     * ended days ago. (Signed, because a trusted self-signed certificate is a trust anchor, whose
     * dates the JDK does not check.)
     */
    public static Identity expired() {
        return MADE.computeIfAbsent("expired", n -> uncheck(() -> generate(n, "dns:localhost,ip:127.0.0.1", "-10d", 1,
                authority())));
    }

    /** A client's certificate, for client authentication. */
    public static Identity client() {
        return make("client", "dns:client.test", null, 30);
    }

    /** For {@code host} only (SNI tests). */
    public static Identity forHost(String host) {
        return make(host, "dns:" + host, null, 30);
    }

    /** The server options the network suites listen with (one context per JVM, as a server has). */
    public static TlsOptions server() {
        TlsOptions s = server;
        if (s == null) {
            s = server = TlsOptions.of(localhost().context());
        }
        return s;
    }

    /** The client options the network suites connect with: trusting {@link #localhost()}, host names checked. */
    public static TlsOptions clientOptions() {
        TlsOptions c = client;
        if (c == null) {
            c = client = TlsOptions.of(localhost().trustedBy());
        }
        return c;
    }

    /**
     * Loads what TLS opens lazily and keeps (providers, the random source's file, the session
     * caches) with one handshake in memory, so leak checks that count descriptors around a test
     * see only what the test opened.
     */
    public static void warmUp() {
        if (warm) {
            return;
        }
        try {
            SSLEngine client = clientOptions().context().createSSLEngine("127.0.0.1", 1);
            client.setUseClientMode(true);
            SSLEngine server = server().context().createSSLEngine();
            server.setUseClientMode(false);
            ByteBuffer c2s = ByteBuffer.allocate(1 << 17);
            ByteBuffer s2c = ByteBuffer.allocate(1 << 17);
            ByteBuffer sink = ByteBuffer.allocate(1 << 17);
            client.beginHandshake();
            server.beginHandshake();
            for (int i = 0; i < 50 && !(idle(client) && idle(server) && c2s.position() == 0 && s2c.position() == 0); i++) {
                step(client, c2s, s2c, sink);
                step(server, s2c, c2s, sink);
            }
        } catch (IOException e) {
            throw new IllegalStateException("TLS warm-up failed", e);
        }
        warm = true;
    }

    private static boolean idle(SSLEngine e) {
        return e.getHandshakeStatus() == HandshakeStatus.NOT_HANDSHAKING;
    }

    private static void step(SSLEngine e, ByteBuffer out, ByteBuffer in, ByteBuffer sink) throws IOException {
        for (int guard = 0; guard < 20; guard++) {
            switch (e.getHandshakeStatus()) {
                case NEED_TASK -> {
                    for (Runnable t; (t = e.getDelegatedTask()) != null; ) {
                        t.run();
                    }
                }
                case NEED_WRAP -> e.wrap(ByteBuffer.allocate(0), out);
                case NEED_UNWRAP -> {
                    in.flip();
                    int before = in.remaining();
                    e.unwrap(in, sink.clear());
                    boolean progress = in.remaining() < before;
                    in.compact();
                    if (!progress) {
                        return;
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    // ------------------------------------------------------------------ making

    private static Identity make(String name, String san, String startDate, int validityDays) {
        return MADE.computeIfAbsent(name, n -> uncheck(() -> generate(n, san, startDate, validityDays, null)));
    }

    /**
     * Makes a key pair and its certificate: self-signed, or signed by {@code issuer} (a certificate
     * request and {@code keytool -gencert}, where {@code startDate} and {@code validityDays} go).
     * {@code san} null makes a certificate authority.
     */
    private static Identity generate(String name, String san, String startDate, int validityDays, Identity issuer)
            throws Exception {
        Path d = directory();
        Path p12 = d.resolve(name + ".p12");
        // A store left by an attempt that was cut short (a test's timeout interrupting keytool)
        // would make -genkeypair fail with "alias already exists" for the rest of the JVM's life.
        Files.deleteIfExists(p12);
        List<String> dates = new ArrayList<>(List.of("-validity", Integer.toString(validityDays)));
        if (startDate != null) {
            dates.addAll(List.of("-startdate", startDate));
        }
        List<String> gen = new ArrayList<>(List.of("-genkeypair", "-alias", "id", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=" + name, "-ext", san == null ? "bc:c" : "SAN=" + san));
        if (issuer == null) {
            gen.addAll(dates);
        }
        keytool(name, p12, gen);
        KeyStore ks = load(p12);
        PrivateKey key = (PrivateKey) ks.getKey("id", PASSWORD.toCharArray());
        List<Certificate> chain = new ArrayList<>(List.of(ks.getCertificate("id")));
        if (issuer != null) {
            Path csr = d.resolve(name + ".csr");
            Path signed = d.resolve(name + ".cer");
            keytool(name, p12, List.of("-certreq", "-alias", "id", "-file", csr.toString()));
            List<String> sign = new ArrayList<>(List.of("-gencert", "-alias", "id", "-infile", csr.toString(),
                    "-outfile", signed.toString(), "-ext", "SAN=" + san));
            sign.addAll(dates);
            keytool(name, issuer.pkcs12(), sign);
            try (InputStream in = Files.newInputStream(signed)) {
                chain = new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
            }
            chain.add(load(issuer.pkcs12()).getCertificate("id")); // the issuer's own, self-signed
            ks.setKeyEntry("id", key, PASSWORD.toCharArray(), chain.toArray(Certificate[]::new));
            try (var out = Files.newOutputStream(p12)) {
                ks.store(out, PASSWORD.toCharArray());
            }
        }
        Path certPem = d.resolve(name + ".pem");
        Path keyPem = d.resolve(name + ".key");
        StringBuilder pems = new StringBuilder();
        for (Certificate c : chain) {
            pems.append(pem("CERTIFICATE", c.getEncoded()));
        }
        Files.writeString(certPem, pems);
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
        return new Identity(name, certPem, keyPem, p12);
    }

    private static void keytool(String name, Path store, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(keytool().toString()));
        cmd.addAll(args);
        cmd.addAll(List.of("-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD,
                "-keypass", PASSWORD, "-noprompt"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed for " + name + ": " + String.join(" ", cmd) + "\n" + out);
        }
    }

    private static KeyStore load(Path p12) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    /** {@code bytes} as PEM, 64 base64 characters a line. */
    public static String pem(String type, byte[] bytes) {
        String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(bytes);
        return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
    }

    /** The keytool next to the running JVM's java. */
    static Path keytool() {
        Path java = ProcessHandle.current().info().command().map(Path::of)
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java"));
        Path kt = java.resolveSibling("keytool");
        if (!Files.isExecutable(kt)) {
            kt = Path.of(System.getProperty("java.home"), "bin", "keytool");
        }
        return kt;
    }

    static synchronized Path directory() throws IOException {
        if (dir == null) {
            Path d = Files.createTempDirectory("loop-tls-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (var files = Files.list(d)) {
                    files.forEach(f -> f.toFile().delete());
                } catch (IOException ignored) {
                    // a temporary directory: the system cleans it eventually
                }
                d.toFile().delete();
            }));
            dir = d;
        }
        return dir;
    }

    private interface IoCall<T> {
        T call() throws Exception;
    }

    private static <T> T uncheck(IoCall<T> c) {
        try {
            return c.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
