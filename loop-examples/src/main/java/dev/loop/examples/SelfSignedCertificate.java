package dev.loop.examples;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway self-signed certificate for {@code localhost} and {@code 127.0.0.1}, made with the
 * {@code keytool} of the running JDK (the JDK has no API to make one) and written as PEM, the
 * format {@code openssl} and {@code curl} take: {@code cert.pem} and an unencrypted PKCS#8
 * {@code key.pem}.
 *
 * @param certificate the certificate, which clients trust with {@code -CAfile} / {@code --cacert}
 * @param privateKey  its key
 */
public record SelfSignedCertificate(Path certificate, Path privateKey) {
    private static final String PASSWORD = "changeit"; // of a store that lives seconds, in a private temp dir

    /** Makes one in a new temporary directory, valid for {@code days} days from now. */
    public static SelfSignedCertificate generate(int days) throws IOException {
        Path dir = Files.createTempDirectory("loop-tls-example-");
        Path store = dir.resolve("store.p12");
        List<String> cmd = List.of(keytool().toString(), "-genkeypair", "-alias", "server", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-validity", Integer.toString(days), "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool failed (" + String.join(" ", cmd) + "): " + out);
            }
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                ks.load(in, PASSWORD.toCharArray());
            }
            Path cert = Files.writeString(dir.resolve("cert.pem"), pem("CERTIFICATE", ks.getCertificate("server").getEncoded()));
            Path key = Files.writeString(dir.resolve("key.pem"),
                    pem("PRIVATE KEY", ks.getKey("server", PASSWORD.toCharArray()).getEncoded()));
            Files.delete(store);
            return new SelfSignedCertificate(cert, key);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while keytool ran", e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot read what keytool made in " + store + ": " + e.getMessage(), e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** The keytool beside the java running this program. */
    private static Path keytool() {
        Path java = ProcessHandle.current().info().command().map(Path::of)
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java"));
        Path kt = java.resolveSibling("keytool");
        return Files.isExecutable(kt) ? kt : Path.of(System.getProperty("java.home"), "bin", "keytool");
    }
}
