package dev.loop.net;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@link SSLContext}s from the files servers and clients usually have: a PEM certificate chain and
 * key (as {@code openssl req} or Let's Encrypt write them), a PKCS#12 store (as {@code keytool}
 * writes it), a PEM bundle of trusted certificates (as {@code curl --cacert} takes it). Every
 * failure is an {@link IOException} naming the file and what was wrong with it.
 */
public final class TlsContexts {
    private static final String KEY_PASSWORD = "loop"; // of the in-memory store only: never written anywhere

    private TlsContexts() {
    }

    /**
     * A context that presents the chain in {@code certificateChain} (the server's own certificate
     * first) with the unencrypted PKCS#8 key in {@code privateKey} ({@code BEGIN PRIVATE KEY}), and
     * trusts what the JDK trusts.
     */
    public static SSLContext fromPem(Path certificateChain, Path privateKey) throws IOException {
        return fromPem(certificateChain, privateKey, null);
    }

    /**
     * As {@link #fromPem(Path, Path)}, trusting only the certificates in {@code trusted} (a client
     * with its own certificate, or a server checking its clients'); null trusts what the JDK trusts.
     */
    public static SSLContext fromPem(Path certificateChain, Path privateKey, Path trusted) throws IOException {
        List<Certificate> chain = certificates(certificateChain);
        PrivateKey key = privateKey(privateKey);
        if (!matches(key, chain.get(0).getPublicKey())) {
            throw new IOException("the key in " + privateKey + " does not go with the first certificate in "
                    + certificateChain + " (the server's own must come first)");
        }
        TrustManager[] trust = trusted == null ? null : trustManagers(trusted);
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("key", key, KEY_PASSWORD.toCharArray(), chain.toArray(Certificate[]::new));
            return context(keyManagers(ks, KEY_PASSWORD.toCharArray()), trust);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use the key in " + privateKey + " with the certificates in "
                    + certificateChain + ": " + e.getMessage(), e);
        }
    }

    /** A context that presents the key and chain in the PKCS#12 file {@code store} and trusts what the JDK trusts. */
    public static SSLContext fromPkcs12(Path store, char[] password) throws IOException {
        return fromPkcs12(store, password, null);
    }

    /**
     * As {@link #fromPkcs12(Path, char[])}, presenting the key entry named {@code alias} (null: the
     * store must hold exactly one key entry, or the JDK picks among them per handshake). The key's
     * password is the store's, as {@code keytool} and {@code openssl pkcs12} write them.
     */
    public static SSLContext fromPkcs12(Path store, char[] password, String alias) throws IOException {
        byte[] bytes = read(store, "PKCS#12 store");
        KeyStore ks;
        List<String> keys = new ArrayList<>();
        try {
            ks = KeyStore.getInstance("PKCS12");
            ks.load(new ByteArrayInputStream(bytes), password);
            for (String a : Collections.list(ks.aliases())) {
                if (ks.isKeyEntry(a)) {
                    keys.add(a);
                }
            }
        } catch (IOException | GeneralSecurityException e) {
            String why = e.getCause() instanceof java.security.UnrecoverableKeyException
                    ? "wrong password (" + e.getMessage() + ")" : e.getMessage();
            throw new IOException("cannot read the PKCS#12 store " + store + ": " + why, e);
        }
        if (keys.isEmpty()) {
            throw new IOException("no private key in the PKCS#12 store " + store + " (only trusted certificates)");
        }
        if (alias != null && !keys.contains(alias)) {
            throw new IOException("no key entry named '" + alias + "' in the PKCS#12 store " + store + " (it has " + keys + ")");
        }
        try {
            if (alias != null && keys.size() > 1) {
                KeyStore one = KeyStore.getInstance("PKCS12");
                one.load(null, null);
                one.setKeyEntry(alias, ks.getKey(alias, password), password, ks.getCertificateChain(alias));
                ks = one;
            }
            return context(keyManagers(ks, password), null);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use the key " + (alias == null ? keys : "'" + alias + "'") + " in the PKCS#12 store "
                    + store + ": " + e.getMessage(), e);
        }
    }

    /** A client context that trusts exactly the certificates in the PEM file {@code trusted}. */
    public static SSLContext trusting(Path trusted) throws IOException {
        TrustManager[] trust = trustManagers(trusted);
        try {
            return context(null, trust);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make a TLS context", e);
        }
    }

    // ------------------------------------------------------------------ PEM

    /** Every certificate in a PEM (or DER) file, in order. */
    static List<Certificate> certificates(Path file) throws IOException {
        byte[] bytes = read(file, "certificate file");
        try {
            List<Certificate> all = List.copyOf(CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes)));
            if (all.isEmpty()) {
                throw new IOException("no certificate in " + file + " (expected -----BEGIN CERTIFICATE-----)");
            }
            return all;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the certificates in " + file + ": " + e.getMessage(), e);
        }
    }

    /** The bytes of {@code file}, or an error that says which file of what kind is missing or unreadable. */
    private static byte[] read(Path file, String what) throws IOException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("no " + what + " at " + file.toAbsolutePath() + " (no such file)", e);
        } catch (AccessDeniedException e) {
            throw new IOException("cannot read the " + what + " " + file + " (permission denied)", e);
        } catch (IOException e) {
            throw new IOException("cannot read the " + what + " " + file + ": " + e, e);
        }
    }

    /** The PKCS#8 private key of a PEM file, of whichever algorithm it is. */
    static PrivateKey privateKey(Path file) throws IOException {
        String pem = new String(read(file, "private key file"), StandardCharsets.US_ASCII);
        if (pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            throw new IOException("the key in " + file + " is encrypted: write it unencrypted"
                    + " (openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pem)");
        }
        String begin = "-----BEGIN PRIVATE KEY-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf("-----END PRIVATE KEY-----");
        if (from < 0 || to < from) {
            String legacy = pem.contains("-----BEGIN RSA PRIVATE KEY-----") || pem.contains("-----BEGIN EC PRIVATE KEY-----")
                    ? " (it holds a PKCS#1/SEC1 key: convert it with openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pem)" : "";
            throw new IOException("no PKCS#8 private key (-----BEGIN PRIVATE KEY-----) in " + file + legacy);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new IOException("the private key in " + file + " is not valid base64: " + e.getMessage(), e);
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String alg : new String[] {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(spec);
            } catch (GeneralSecurityException notThisOne) {
                // the PKCS#8 structure names its algorithm; trying the usual ones is simpler than parsing it
            }
        }
        throw new IOException("the private key in " + file + " is of no algorithm this JDK knows (tried RSA, EC, EdDSA, DSA)");
    }

    /**
     * Whether {@code key} signs what {@code pub} verifies: a key that is not the certificate's would
     * otherwise show only as a failed handshake, far from the file that is wrong.
     */
    private static boolean matches(PrivateKey key, PublicKey pub) {
        String alg = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "DSA" -> "SHA256withDSA";
            case "Ed25519", "Ed448", "EdDSA" -> "EdDSA";
            default -> null; // RSASSA-PSS needs parameters: the handshake will tell
        };
        if (alg == null) {
            return true;
        }
        try {
            byte[] probe = "loop".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(alg);
            sign.initSign(key);
            sign.update(probe);
            byte[] sig = sign.sign();
            Signature verify = Signature.getInstance(alg);
            verify.initVerify(pub);
            verify.update(probe);
            return verify.verify(sig);
        } catch (GeneralSecurityException e) {
            return false; // of another algorithm than the certificate's key
        }
    }

    // ------------------------------------------------------------------ contexts

    private static KeyManager[] keyManagers(KeyStore ks, char[] password) throws GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        return kmf.getKeyManagers();
    }

    private static TrustManager[] trustManagers(Path trusted) throws IOException {
        List<Certificate> certs = certificates(trusted);
        try {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            int i = 0;
            for (Certificate c : certs) {
                ts.setCertificateEntry("trusted-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            return tmf.getTrustManagers();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot trust the certificates in " + trusted + ": " + e.getMessage(), e);
        }
    }

    private static SSLContext context(KeyManager[] keys, TrustManager[] trust) throws GeneralSecurityException {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(keys, trust, null);
        return ctx;
    }
}
