package dev.loop.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ProviderInfo;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.TlsContexts;
import dev.loop.net.TlsOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our TLS against clients and servers nobody here wrote: {@code openssl s_client} and {@code curl}
 * against the TLS example (echo, and its HTTPS mode), our client against {@code openssl s_server}
 * (ALPN, and a key update it asks for), on each backend. The tools come from Debian; {@code .ci/run}
 * installs them, and a machine without them skips these tests, saying which tool is missing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsRealClientsTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final long WAIT_MS = 15_000;
    private static SelfSignedCertificate cert;

    @TempDir
    Path dir;

    @BeforeAll
    static void certificate() throws IOException {
        cert = SelfSignedCertificate.generate(2);
    }

    private static void assumeTool(String tool) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "command -v " + tool).start();
        assumeTrue(p.waitFor() == 0, tool + " is not installed (.ci/run installs it from Debian)");
    }

    private static void assumeBackend(String backend) {
        assumeTrue(Loops.providers().stream().anyMatch(p -> p.kind().equals(ProviderInfo.BACKEND)
                && p.name().equals(backend) && p.available()), "backend " + backend + " is not available here");
    }

    /** A loop running on a thread of its own, with the example's TLS server on it. */
    private record Running(Loop loop, Server server, Thread thread) implements AutoCloseable {
        static Running start(String backend, boolean http) throws Exception {
            Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend));
            TlsOptions tls = TlsOptions.of(TlsContexts.fromPem(cert.certificate(), cert.privateKey()));
            Server server = TlsEchoServer.start(loop, ANY_PORT, tls, http);
            Thread t = Thread.ofPlatform().name("loop-" + backend).start(loop::runForever);
            return new Running(loop, server, t);
        }

        int port() {
            return server.localAddress().getPort();
        }

        @Override
        public void close() {
            loop.stop();
            try {
                thread.join(WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            loop.close();
        }
    }

    /** A process whose output is read line by line as it comes. */
    private static final class Tool implements AutoCloseable {
        final Process process;
        final List<String> seen = new ArrayList<>();
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Tool(String... cmd) throws IOException {
            process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l; (l = r.readLine()) != null; ) {
                        lines.add(l);
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            });
        }

        String await(Predicate<String> wanted, String what) throws InterruptedException {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            for (long left; (left = deadline - System.currentTimeMillis()) > 0; ) {
                String l = lines.poll(left, TimeUnit.MILLISECONDS);
                if (l == null) {
                    break;
                }
                seen.add(l);
                if (wanted.test(l)) {
                    return l;
                }
            }
            throw new AssertionError("no " + what + " from " + process.info().commandLine().orElse("the tool") + "; it said: " + seen);
        }

        void send(String line) throws IOException {
            OutputStream o = process.getOutputStream();
            o.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            o.flush();
        }

        int finish() throws Exception {
            process.getOutputStream().close();
            assertTrue(process.waitFor(WAIT_MS, TimeUnit.MILLISECONDS), "the tool did not end: " + seen);
            for (String l; (l = lines.poll()) != null; ) {
                seen.add(l);
            }
            return process.exitValue();
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll"})
    void opensslSClientVerifiesEchoesAndUpdatesKeys(String backend) throws Exception {
        assumeTool("openssl");
        assumeBackend(backend);
        try (Running r = Running.start(backend, false);
             Tool client = new Tool("openssl", "s_client", "-connect", "127.0.0.1:" + r.port(), "-CAfile",
                     cert.certificate().toString(), "-verify_return_error", "-servername", "localhost")) {
            client.await(l -> l.contains("Verify return code: 0 (ok)"), "verified certificate");
            client.send("hello loop");
            client.await(l -> l.equals("hello loop"), "echo");
            client.send("K"); // a TLS 1.3 key update, asking ours in return
            client.await(l -> l.equals("KEYUPDATE"), "key update");
            client.send("after the update");
            client.await(l -> l.equals("after the update"), "echo after the key update");
            assertEquals(0, client.finish(), client.seen.toString()); // stdin ends: close_notify, and out
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll"})
    void curlVerifiesAndFetchesTwoPagesOnOneConnection(String backend) throws Exception {
        assumeTool("curl");
        assumeBackend(backend);
        try (Running r = Running.start(backend, true)) {
            String host = "localhost:" + r.port();
            Process curl = new ProcessBuilder("curl", "--silent", "--show-error", "--cacert", cert.certificate().toString(),
                    "--resolve", host + ":127.0.0.1", "--write-out", "[%{http_version} %{num_connects}]\n",
                    "https://" + host + "/a", "https://" + host + "/b").redirectErrorStream(true).start();
            String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(curl.waitFor(WAIT_MS, TimeUnit.MILLISECONDS));
            assertEquals(0, curl.exitValue(), out);
            assertTrue(out.contains("from loop: GET /a HTTP/1.1") && out.contains("from loop: GET /b HTTP/1.1"), out);
            assertTrue(out.contains("[1.1 1]") && out.contains("[1.1 0]"), "one connection for both, HTTP/1.1: " + out);
            assertTrue(out.contains("TLSv1.3"), out);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll"})
    void ourClientNegotiatesAlpnWithOpensslSServer(String backend) throws Exception {
        assumeTool("openssl");
        assumeBackend(backend);
        Path[] pem = opensslCertificate();
        try (Tool server = new Tool("openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", pem[0].toString(),
                "-key", pem[1].toString(), "-alpn", "h2,http/1.1", "-www");
             Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            int port = Integer.parseInt(server.await(l -> l.startsWith("ACCEPT "), "ACCEPT line").replaceAll(".*:", ""));
            InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            TlsOptions trust = TlsOptions.of(TlsContexts.trusting(pem[0]));
            Connection both = loop.runUntilComplete(Net.connect(loop, at, ConnectionOptions.defaults(),
                    trust.withApplicationProtocols("h2", "http/1.1")));
            assertEquals("h2", both.tls().applicationProtocol());
            both.write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String status = loop.runUntilComplete(both.readLine(1000));
            assertTrue(status.startsWith("HTTP/1.0 200"), status);
            both.close();
            Connection old = loop.runUntilComplete(Net.connect(loop, at, ConnectionOptions.defaults(),
                    trust.withApplicationProtocols("http/1.1")));
            assertEquals("http/1.1", old.tls().applicationProtocol());
            old.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll"})
    void ourClientFollowsAKeyUpdateOpensslSServerAsksFor(String backend) throws Exception {
        assumeTool("openssl");
        assumeBackend(backend);
        assumeTool("stdbuf");
        Path[] pem = opensslCertificate();
        // -msg shows each handshake message both ways; stdbuf makes s_server's stdout line by line
        try (Tool server = new Tool("stdbuf", "-oL", "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert",
                pem[0].toString(), "-key", pem[1].toString(), "-msg");
             Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            int port = Integer.parseInt(server.await(l -> l.startsWith("ACCEPT "), "ACCEPT line").replaceAll(".*:", ""));
            Connection c = loop.runUntilComplete(Net.connect(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                    ConnectionOptions.defaults(), TlsOptions.of(TlsContexts.trusting(pem[0]))));
            c.write("ping\n".getBytes(StandardCharsets.US_ASCII));
            server.await(l -> l.equals("ping"), "our ping");
            server.send("K"); // s_server: a key update, asking ours in return
            server.await(l -> l.startsWith(">>> ") && l.endsWith("KeyUpdate"), "key update sent");
            server.send("pong");
            assertEquals("pong", loop.runUntilComplete(c.readLine(100)), "read under the server's new key");
            c.write("again\n".getBytes(StandardCharsets.US_ASCII));
            server.await(l -> l.startsWith("<<< ") && l.endsWith("KeyUpdate"), "our key update in return");
            server.await(l -> l.equals("again"), "our line under our new key");
            c.close();
            loop.runUntilComplete(c.closeFuture());
        }
    }

    /** A self-signed certificate for localhost and 127.0.0.1 made by openssl, as PEM files. */
    private Path[] opensslCertificate() throws Exception {
        Path c = dir.resolve("cert.pem");
        Path k = dir.resolve("key.pem");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-keyout", k.toString(), "-out", c.toString(), "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(WAIT_MS, TimeUnit.MILLISECONDS) && p.exitValue() == 0, out);
        assertTrue(Files.readString(k).contains("BEGIN PRIVATE KEY"), "openssl 3 writes PKCS#8");
        return new Path[] {c, k};
    }
}
