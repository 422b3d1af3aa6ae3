package dev.loop.testkit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the test certificates with {@code keytool} and keeps each finished PKCS#12 store in a
 * directory shared by the JVMs of a build (and by builds of other checkouts on the machine), so that
 * only the first JVM pays for {@code keytool}: one JDK process per call, 4 to 20 s each on a busy
 * machine.
 *
 * <p>Why a cache and not {@code sun.security.tools.keytool.Main} in process: that is internal to
 * the JDK, so every surefire {@code argLine} and every user of the test kit would need
 * {@code --add-exports java.base/sun.security.tools.keytool=ALL-UNNAMED}, and its entry points
 * change between JDK releases (and call {@code System.exit} on errors). A cache keeps the public
 * tool and costs nothing after the first JVM.
 *
 * <p>The rules that keep a shared cache honest:
 * <ul>
 *   <li>A store's file name is a hash of everything that decides its content: the JDK's version (its
 *       {@code keytool} and PKCS#12 defaults), the names, the validity, the day a certificate dated
 *       relative to today was made on, and the issuer's certificate.</li>
 *   <li>A store is written to a temporary file beside its final name and moved there atomically, so a
 *       JVM reading at the same time sees the old store or the new one, never half of one.</li>
 *   <li>A cached store is used only if it loads and its certificate is still what was asked for
 *       (names, validity window, issuer); otherwise it is made again and replaces it.</li>
 *   <li>Each JVM reads a store's bytes once, checks them, and works from its own copy in a private
 *       directory (the PEM files too), so a store replaced later under its feet changes nothing.</li>
 * </ul>
 * Thread-safe: one identity is made at a time.
 */
final class CertificateCache {
    static final String PASSWORD = "changeit";
    /** Where the shared cache is, if not the default under {@code java.io.tmpdir}. */
    static final String DIRECTORY_PROPERTY = "loop.testkit.certificates";
    /** Bumped when what is stored changes meaning, so old stores are not picked up. */
    private static final String FORMAT = "1";
    /** A valid certificate is reused only while it stays valid at least this long: a whole build. */
    private static final Duration MIN_REMAINING = Duration.ofDays(1);
    /** Temporary files older than this were left by a JVM killed while writing. */
    private static final Duration STALE_TEMPORARY = Duration.ofHours(1);
    private static final AtomicInteger KEYTOOL_RUNS = new AtomicInteger();

    private final Path shared;
    private final Path work;

    /**
     * What a certificate must be.
     *
     * @param san          the subject's alternative names as keytool takes them ({@code dns:a,ip:b}),
     *                     or null for a certificate authority
     * @param startDaysAgo 0 for a certificate valid from now, otherwise how many days ago it starts
     * @param issuer       who signs it, or null for self-signed
     */
    record Spec(String name, String san, int startDaysAgo, int validityDays, TestCertificates.Identity issuer) {
    }

    /**
     * @param shared the cache shared between JVMs (made if absent)
     * @param work   this JVM's own directory, for keytool's files and the copies the tests use
     */
    CertificateCache(Path shared, Path work) throws IOException {
        this.work = work;
        this.shared = usable(shared) ? shared : work;
    }

    /** How many times {@code keytool} ran in this JVM: zero when everything came from the cache. */
    static int keytoolRuns() {
        return KEYTOOL_RUNS.get();
    }

    /** The shared directory in use: {@code work} if the one asked for could not be used. */
    Path sharedDirectory() {
        return shared;
    }

    /** The cache's default place: one per user, so parallel builds on a machine share it. */
    static Path defaultDirectory() {
        String p = System.getProperty(DIRECTORY_PROPERTY);
        if (p != null && !p.isBlank()) {
            return Path.of(p);
        }
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "loop-test-certificates-" + user);
    }

    /** The file a spec is kept in, in the shared directory. */
    Path storeFor(Spec spec) throws Exception {
        StringBuilder key = new StringBuilder(FORMAT).append('|').append(Runtime.version()).append('|')
                .append(spec.name()).append('|').append(spec.san()).append('|').append(spec.validityDays());
        if (spec.startDaysAgo() != 0) {
            // "-10d" means ten days before the day it runs: tomorrow's store is another one.
            key.append('|').append(LocalDate.now(ZoneOffset.UTC)).append('-').append(spec.startDaysAgo());
        }
        if (spec.issuer() != null) {
            key.append('|').append(fingerprint(load(Files.readAllBytes(spec.issuer().pkcs12())).getCertificate("id")));
        }
        byte[] h = MessageDigest.getInstance("SHA-256").digest(key.toString().getBytes(StandardCharsets.UTF_8));
        return shared.resolve(safe(spec.name()) + "-" + HexFormat.of().formatHex(h, 0, 10) + ".p12");
    }

    /** The identity for {@code spec}: from the cache if a store there still fits it, else made now. */
    synchronized TestCertificates.Identity identity(Spec spec) throws Exception {
        Path cached = storeFor(spec);
        byte[] bytes = readIfPresent(cached);
        KeyStore ks = bytes == null ? null : fitting(bytes, spec);
        if (ks == null) {
            bytes = generate(spec);
            ks = load(bytes);
            String wrong = mismatch(ks, spec);
            if (wrong != null) {
                throw new IllegalStateException("keytool made a certificate for " + spec.name() + " that " + wrong);
            }
            publish(cached, bytes);
        }
        return materialise(spec.name(), bytes, ks);
    }

    // ------------------------------------------------------------------ the shared directory

    private boolean usable(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
                }
            }
            // The tests trust what they find here: only in a directory of our own.
            String owner = Files.getOwner(dir).getName();
            if (!owner.equals(System.getProperty("user.name")) || !Files.isWritable(dir)) {
                return false;
            }
            sweep(dir);
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false; // no sharing then: each JVM makes its own, as before the cache
        }
    }

    private static void sweep(Path dir) throws IOException {
        Instant before = Instant.now().minus(STALE_TEMPORARY);
        try (var files = Files.newDirectoryStream(dir, "*.tmp")) {
            for (Path f : files) {
                try {
                    if (Files.getLastModifiedTime(f).toInstant().isBefore(before)) {
                        Files.deleteIfExists(f);
                    }
                } catch (IOException ignored) {
                    // another JVM swept it first
                }
            }
        }
    }

    private static byte[] readIfPresent(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            return null; // absent or unreadable: made again
        }
    }

    /** {@code bytes} as a store if they load and fit {@code spec}; null if they must be made again. */
    private KeyStore fitting(byte[] bytes, Spec spec) {
        try {
            KeyStore ks = load(bytes);
            return mismatch(ks, spec) == null ? ks : null;
        } catch (Exception e) {
            return null; // truncated, corrupted, or made by a JDK that wrote something else
        }
    }

    /** Writes next to {@code target} and moves into place in one step. */
    private static void publish(Path target, byte[] bytes) throws IOException {
        Path tmp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
        try {
            Files.write(tmp, bytes);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                // Not sharing beats sharing half a store: this JVM uses its own bytes anyway.
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    // ------------------------------------------------------------------ checking

    /** What is wrong with {@code ks} for {@code spec}, or null if it is what was asked for. */
    static String mismatch(KeyStore ks, Spec spec) throws Exception {
        if (!ks.isKeyEntry("id") || !(ks.getCertificate("id") instanceof X509Certificate cert)) {
            return "has no key entry 'id' with an X.509 certificate";
        }
        if (!cert.getSubjectX500Principal().getName().equals("CN=" + spec.name())) {
            return "is for " + cert.getSubjectX500Principal().getName() + ", not CN=" + spec.name();
        }
        if (spec.san() == null ? cert.getBasicConstraints() < 0 : !sans(cert).equals(wanted(spec.san()))) {
            return "names " + sans(cert) + ", not " + spec.san();
        }
        Instant now = Instant.now();
        if (spec.startDaysAgo() == 0) {
            if (cert.getNotBefore().toInstant().isAfter(now) || cert.getNotAfter().toInstant().isBefore(now.plus(MIN_REMAINING))) {
                return "is valid " + cert.getNotBefore().toInstant() + " to " + cert.getNotAfter().toInstant()
                        + ", not from now for at least " + MIN_REMAINING;
            }
        } else if (!cert.getNotAfter().toInstant().isBefore(now)) {
            return "is still valid until " + cert.getNotAfter().toInstant();
        }
        Certificate[] chain = ks.getCertificateChain("id");
        if (spec.issuer() != null) {
            Certificate issuer = load(Files.readAllBytes(spec.issuer().pkcs12())).getCertificate("id");
            if (chain.length != 2 || !chain[1].equals(issuer)) {
                return "is not chained to " + spec.issuer().name() + "'s certificate";
            }
            try {
                cert.verify(issuer.getPublicKey());
            } catch (Exception e) {
                return "is not signed by " + spec.issuer().name() + ": " + e;
            }
        }
        return null;
    }

    private static Set<String> sans(X509Certificate cert) throws Exception {
        Set<String> out = new TreeSet<>();
        var names = cert.getSubjectAlternativeNames();
        if (names != null) {
            for (List<?> n : names) {
                int type = (Integer) n.get(0);
                out.add((type == 2 ? "dns:" : type == 7 ? "ip:" : type + ":") + n.get(1).toString().toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    private static Set<String> wanted(String san) {
        Set<String> out = new TreeSet<>();
        for (String s : san.split(",")) {
            out.add(s.trim().toLowerCase(Locale.ROOT));
        }
        return out;
    }

    // ------------------------------------------------------------------ making

    /**
     * Makes a key pair and its certificate in this JVM's directory: self-signed, or signed by the
     * spec's issuer (a certificate request and {@code keytool -gencert}, where the dates go).
     */
    private byte[] generate(Spec spec) throws Exception {
        String name = spec.name();
        Path p12 = work.resolve(safe(name) + ".p12");
        // A store left by an attempt that was cut short (a test's timeout interrupting keytool)
        // would make -genkeypair fail with "alias already exists" for the rest of the JVM's life.
        Files.deleteIfExists(p12);
        List<String> dates = new ArrayList<>(List.of("-validity", Integer.toString(spec.validityDays())));
        if (spec.startDaysAgo() != 0) {
            dates.addAll(List.of("-startdate", "-" + spec.startDaysAgo() + "d"));
        }
        List<String> gen = new ArrayList<>(List.of("-genkeypair", "-alias", "id", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=" + name, "-ext", spec.san() == null ? "bc:c" : "SAN=" + spec.san()));
        if (spec.issuer() == null) {
            gen.addAll(dates);
            keytool(name, p12, gen);
            return Files.readAllBytes(p12);
        }
        keytool(name, p12, gen);
        KeyStore ks = load(Files.readAllBytes(p12));
        PrivateKey key = (PrivateKey) ks.getKey("id", PASSWORD.toCharArray());
        Path csr = work.resolve(safe(name) + ".csr");
        Path signed = work.resolve(safe(name) + ".cer");
        keytool(name, p12, List.of("-certreq", "-alias", "id", "-file", csr.toString()));
        List<String> sign = new ArrayList<>(List.of("-gencert", "-alias", "id", "-infile", csr.toString(),
                "-outfile", signed.toString(), "-ext", "SAN=" + spec.san()));
        sign.addAll(dates);
        keytool(name, spec.issuer().pkcs12(), sign);
        List<Certificate> chain;
        try (InputStream in = Files.newInputStream(signed)) {
            chain = new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
        chain.add(load(Files.readAllBytes(spec.issuer().pkcs12())).getCertificate("id")); // the issuer's own
        ks.setKeyEntry("id", key, PASSWORD.toCharArray(), chain.toArray(Certificate[]::new));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ks.store(out, PASSWORD.toCharArray());
        return out.toByteArray();
    }

    /** This JVM's own copies: the store and its PEM files, from bytes already checked. */
    private TestCertificates.Identity materialise(String name, byte[] bytes, KeyStore ks) throws Exception {
        Path p12 = work.resolve(safe(name) + ".p12");
        Files.write(p12, bytes);
        StringBuilder pems = new StringBuilder();
        for (Certificate c : ks.getCertificateChain("id")) {
            pems.append(TestCertificates.pem("CERTIFICATE", c.getEncoded()));
        }
        Path certPem = Files.writeString(work.resolve(safe(name) + ".pem"), pems);
        PrivateKey key = (PrivateKey) ks.getKey("id", PASSWORD.toCharArray());
        Path keyPem = Files.writeString(work.resolve(safe(name) + ".key"), TestCertificates.pem("PRIVATE KEY", key.getEncoded()));
        return new TestCertificates.Identity(name, certPem, keyPem, p12);
    }

    private static void keytool(String name, Path store, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(keytool().toString()));
        cmd.addAll(args);
        cmd.addAll(List.of("-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD,
                "-keypass", PASSWORD, "-noprompt"));
        KEYTOOL_RUNS.incrementAndGet();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool failed for " + name + ": " + String.join(" ", cmd) + "\n" + out);
        }
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

    static KeyStore load(byte[] bytes) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(new ByteArrayInputStream(bytes), PASSWORD.toCharArray());
        return ks;
    }

    static String fingerprint(Certificate c) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
    }

    /** A host name as a file name: SNI tests may ask for anything. */
    private static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
