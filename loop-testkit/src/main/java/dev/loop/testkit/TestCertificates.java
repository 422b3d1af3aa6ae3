package dev.loop.testkit;

import dev.loop.net.TlsContexts;
import dev.loop.net.TlsOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;

/**
 * Certificates the TLS tests need, made at run time with the {@code keytool} of the running JDK
 * (the JDK has no public API to make one) and kept in a cache that the JVMs of a build share, so
 * only the first JVM pays for {@code keytool} (see {@link CertificateCache}: by default
 * {@code ${java.io.tmpdir}/loop-test-certificates-<user>}, or {@code -Dloop.testkit.certificates=<dir>}).
 * Each JVM works from its own copies, in a temporary directory deleted at exit.
 * Each is self-signed, EC P-256 (fast handshakes), with its key also written as an unencrypted
 * PKCS#8 PEM file for the tools that want one ({@code openssl}, {@code curl}). Nothing here is a
 * secret worth keeping.
 */
public final class TestCertificates {
    private static final String PASSWORD = "changeit";
    private static final Map<String, Identity> MADE = new ConcurrentHashMap<>();
    private static volatile Path dir;
    private static CertificateCache cache;
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
        return make("localhost", "dns:localhost,ip:127.0.0.1");
    }

    /** Valid for the same names as {@link #localhost()}, but signed by nobody anyone trusts. */
    public static Identity untrusted() {
        return make("untrusted", "dns:localhost,ip:127.0.0.1");
    }

    /** A certificate authority, for the certificates below that it signs. */
    public static Identity authority() {
        return make(new CertificateCache.Spec("authority", null, 0, 30, null));
    }

    /**
     * For the same names as {@link #localhost()}, signed by {@link #authority()}, but its validity
     * ended days ago. (Signed, because a trusted self-signed certificate is a trust anchor, whose
     * dates the JDK does not check.)
     */
    public static Identity expired() {
        Identity issuer = authority(); // before, not inside, the map's computation of another key
        return make(new CertificateCache.Spec("expired", "dns:localhost,ip:127.0.0.1", 10, 1, issuer));
    }

    /** A client's certificate, for client authentication. */
    public static Identity client() {
        return make("client", "dns:client.test");
    }

    /** For {@code host} only (SNI tests). */
    public static Identity forHost(String host) {
        return make(host, "dns:" + host);
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

    private static Identity make(String name, String san) {
        return make(new CertificateCache.Spec(name, san, 0, 30, null));
    }

    private static Identity make(CertificateCache.Spec spec) {
        return MADE.computeIfAbsent(spec.name(), n -> uncheck(() -> cache().identity(spec)));
    }

    private static synchronized CertificateCache cache() throws IOException {
        if (cache == null) {
            cache = new CertificateCache(CertificateCache.defaultDirectory(), directory());
        }
        return cache;
    }

    /** {@code bytes} as PEM, 64 base64 characters a line. */
    public static String pem(String type, byte[] bytes) {
        String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(bytes);
        return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
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
