package dev.loop.net;

import java.net.InetSocketAddress;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * TLS settings of a server ({@link Net#listen(dev.loop.Loop, InetSocketAddress, ServerOptions, TlsOptions,
 * java.util.function.Consumer) Net.listen}), a client ({@link Net#connect(dev.loop.Loop, InetSocketAddress,
 * ConnectionOptions, TlsOptions) Net.connect}) or an upgrade ({@link Connection#startTls}). Immutable; each
 * {@code with...} returns a copy. Engines come from a {@link SSLContext}, which holds the keys, the
 * trusted certificates and the session cache (resumption is the JDK's); {@link TlsContexts} makes
 * one from PEM or PKCS#12 files.
 *
 * <p>A field marked "client" or "server" is ignored on the other side.
 *
 * @param context              the context engines are made from
 * @param protocols            the protocol versions enabled, e.g. {@code TLSv1.3}; empty: the context's defaults
 * @param cipherSuites         the cipher suites enabled; empty: the context's defaults
 * @param applicationProtocols ALPN: the protocols offered (client) or accepted, in order of preference
 *                             (server); empty: no ALPN. The outcome is {@link TlsInfo#applicationProtocol()}.
 * @param clientAuth           server: whether clients are asked for a certificate
 * @param serverName           client: the host name sent with SNI and checked against the server's
 *                             certificate; null: the host string of the address connected to (an IP
 *                             address is checked against the certificate's IP entries and sends no SNI)
 * @param verifyHostname       client: check that the server's certificate names {@code serverName}
 *                             (HTTPS endpoint identification); on by default. The chain is checked
 *                             against the context's trust either way.
 * @param serverContexts       server: a context per SNI host name, exact ({@code example.com}) or one
 *                             leading label ({@code *.example.com}); a client naming no host, or one not
 *                             listed, gets {@code context}
 * @param handshakeTimeout     a handshake not finished by then fails with an
 *                             {@link javax.net.ssl.SSLHandshakeException}; {@link Duration#ZERO}: none
 * @param taskExecutor         where the engine's delegated tasks run (key exchange, signatures,
 *                             certificate checks: milliseconds each, which would stall the loop);
 *                             null: a new virtual thread per batch
 */
public record TlsOptions(SSLContext context, List<String> protocols, List<String> cipherSuites,
                         List<String> applicationProtocols, ClientAuth clientAuth, String serverName,
                         boolean verifyHostname, Map<String, SSLContext> serverContexts, Duration handshakeTimeout,
                         Executor taskExecutor) {

    /** As Netty's {@code SslHandler}; asyncio waits 60 s. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    /** Whether a server asks its clients for a certificate. */
    public enum ClientAuth {
        /** No certificate is asked for. */
        NONE,
        /** A certificate is asked for; a client without one still connects. */
        OPTIONAL,
        /** A client without a certificate the server trusts fails its handshake. */
        REQUIRED
    }

    public TlsOptions {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(clientAuth, "clientAuth");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        if (handshakeTimeout.isNegative()) {
            throw new IllegalArgumentException("handshakeTimeout must not be negative: " + handshakeTimeout);
        }
        protocols = List.copyOf(protocols);
        cipherSuites = List.copyOf(cipherSuites);
        applicationProtocols = List.copyOf(applicationProtocols);
        SSLParameters supported = context.getSupportedSSLParameters();
        requireSupported("protocol", protocols, supported.getProtocols(), context);
        requireSupported("cipher suite", cipherSuites, supported.getCipherSuites(), context);
        for (String p : applicationProtocols) {
            if (p.isEmpty() || p.length() > 255) {
                throw new IllegalArgumentException("an ALPN protocol name has 1 to 255 bytes: \"" + p + "\"");
            }
        }
        Map<String, SSLContext> byName = new LinkedHashMap<>();
        serverContexts.forEach((name, ctx) -> byName.put(name.toLowerCase(Locale.ROOT), Objects.requireNonNull(ctx, name)));
        serverContexts = Map.copyOf(byName);
    }

    /** TLS with {@code context}: its default protocols and suites, no ALPN, host names verified, 10 s to handshake. */
    public static TlsOptions of(SSLContext context) {
        return new TlsOptions(context, List.of(), List.of(), List.of(), ClientAuth.NONE, null, true, Map.of(),
                DEFAULT_HANDSHAKE_TIMEOUT, null);
    }

    /** A client that trusts what the JDK trusts (its {@code cacerts}), as a browser would. */
    public static TlsOptions client() {
        try {
            return of(SSLContext.getDefault());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no default TLS context", e);
        }
    }

    public TlsOptions withProtocols(String... names) {
        return new TlsOptions(context, List.of(names), cipherSuites, applicationProtocols, clientAuth, serverName,
                verifyHostname, serverContexts, handshakeTimeout, taskExecutor);
    }

    public TlsOptions withCipherSuites(String... names) {
        return new TlsOptions(context, protocols, List.of(names), applicationProtocols, clientAuth, serverName,
                verifyHostname, serverContexts, handshakeTimeout, taskExecutor);
    }

    public TlsOptions withApplicationProtocols(String... names) {
        return new TlsOptions(context, protocols, cipherSuites, List.of(names), clientAuth, serverName,
                verifyHostname, serverContexts, handshakeTimeout, taskExecutor);
    }

    public TlsOptions withClientAuth(ClientAuth auth) {
        return new TlsOptions(context, protocols, cipherSuites, applicationProtocols, auth, serverName,
                verifyHostname, serverContexts, handshakeTimeout, taskExecutor);
    }

    public TlsOptions withServerName(String hostName) {
        return new TlsOptions(context, protocols, cipherSuites, applicationProtocols, clientAuth, hostName,
                verifyHostname, serverContexts, handshakeTimeout, taskExecutor);
    }

    /** Turns the client's host name check off (the chain is still checked); for tests and pinned peers. */
    public TlsOptions withHostnameVerification(boolean on) {
        return new TlsOptions(context, protocols, cipherSuites, applicationProtocols, clientAuth, serverName,
                on, serverContexts, handshakeTimeout, taskExecutor);
    }

    /** Serves {@code hostName} (or {@code *.domain}) with {@code ctx} when a client asks for it by SNI. */
    public TlsOptions withServerContext(String hostName, SSLContext ctx) {
        Map<String, SSLContext> m = new LinkedHashMap<>(serverContexts);
        m.put(hostName, ctx);
        return new TlsOptions(context, protocols, cipherSuites, applicationProtocols, clientAuth, serverName,
                verifyHostname, m, handshakeTimeout, taskExecutor);
    }

    public TlsOptions withHandshakeTimeout(Duration d) {
        return new TlsOptions(context, protocols, cipherSuites, applicationProtocols, clientAuth, serverName,
                verifyHostname, serverContexts, d, taskExecutor);
    }

    /** Runs delegated tasks on {@code executor}; {@code Runnable::run} runs them on the loop thread. */
    public TlsOptions withTaskExecutor(Executor executor) {
        return new TlsOptions(context, protocols, cipherSuites, applicationProtocols, clientAuth, serverName,
                verifyHostname, serverContexts, handshakeTimeout, executor);
    }

    // ------------------------------------------------------------------ engines

    /** The host name a client sends and verifies for a connection to {@code peer}. */
    public String hostFor(InetSocketAddress peer) {
        return serverName != null ? serverName : peer.getHostString();
    }

    /** The context for a client that asked for {@code host} by SNI (null: it named none). */
    public SSLContext contextFor(String host) {
        if (host == null || serverContexts.isEmpty()) {
            return context;
        }
        String h = host.toLowerCase(Locale.ROOT);
        SSLContext exact = serverContexts.get(h);
        if (exact != null) {
            return exact;
        }
        int dot = h.indexOf('.');
        SSLContext wild = dot > 0 ? serverContexts.get("*" + h.substring(dot)) : null;
        return wild != null ? wild : context;
    }

    /** A configured engine: a client's for {@code peer}, or a server's from {@code ctx}. */
    public SSLEngine newEngine(boolean client, InetSocketAddress peer, SSLContext ctx) {
        SSLEngine e;
        SSLParameters p;
        if (client) {
            String host = hostFor(peer);
            e = ctx.createSSLEngine(host, peer.getPort()); // host and port key the JDK's session cache
            e.setUseClientMode(true);
            p = e.getSSLParameters();
            if (verifyHostname) {
                p.setEndpointIdentificationAlgorithm("HTTPS");
            }
            if (isHostName(host)) {
                p.setServerNames(List.of(new SNIHostName(host)));
            }
        } else {
            e = ctx.createSSLEngine();
            e.setUseClientMode(false);
            p = e.getSSLParameters();
            if (clientAuth == ClientAuth.REQUIRED) {
                p.setNeedClientAuth(true);
            } else if (clientAuth == ClientAuth.OPTIONAL) {
                p.setWantClientAuth(true);
            }
        }
        if (!protocols.isEmpty()) {
            p.setProtocols(protocols.toArray(String[]::new));
        }
        if (!cipherSuites.isEmpty()) {
            p.setCipherSuites(cipherSuites.toArray(String[]::new));
        }
        if (!applicationProtocols.isEmpty()) {
            p.setApplicationProtocols(applicationProtocols.toArray(String[]::new));
        }
        e.setSSLParameters(p);
        return e;
    }

    /** SNI carries DNS names only: not IP literals, and not names without a dot-free label. */
    static boolean isHostName(String host) {
        if (host == null || host.isEmpty() || host.indexOf(':') >= 0 || host.endsWith(".")) {
            return false;
        }
        boolean digitsAndDots = host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
        return !digitsAndDots;
    }

    private static void requireSupported(String what, List<String> wanted, String[] supported, SSLContext ctx) {
        List<String> all = Arrays.asList(supported);
        for (String w : wanted) {
            if (!all.contains(w)) {
                throw new IllegalArgumentException("unsupported " + what + " " + w + " (provider "
                        + ctx.getProvider().getName() + " supports " + all + ")");
            }
        }
    }
}
