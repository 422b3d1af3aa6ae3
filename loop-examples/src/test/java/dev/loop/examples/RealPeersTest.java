package dev.loop.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Server;
import dev.loop.net.Unix;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The UDP and Unix socket examples against clients nobody here wrote: {@code socat} and
 * {@code curl}, which {@code .ci/run} installs. Skipped, saying so, where they are missing.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RealPeersTest {
    @TempDir
    Path dir;

    private static void assumeInstalled(String tool) {
        boolean found = false;
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            found |= java.nio.file.Files.isExecutable(Path.of(d, tool));
        }
        Assumptions.assumeTrue(found, tool + " is not installed (.ci/run installs it)");
    }

    /**
     * Runs {@code command} with {@code input} on its standard input, reads {@code expected} bytes
     * of its standard output, then ends it (socat waits for more from a UDP peer).
     */
    private static CompletableFuture<String> client(List<String> command, String input, int expected) {
        return CompletableFuture.supplyAsync(() -> {
            Process p = null;
            try {
                p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
                p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
                p.getOutputStream().close();
                InputStream out = p.getInputStream();
                return new String(out.readNBytes(expected), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                if (p != null) {
                    p.destroy();
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll"})
    void socatIsAnsweredByTheUdpEcho(String backend) throws Exception {
        assumeInstalled("socat");
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            DatagramEndpoint echo = UdpEcho.start(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            String text = "hello over udp\n";
            CompletableFuture<String> socat = client(List.of("socat", "-t", "10", "-",
                    "UDP:127.0.0.1:" + echo.localAddress().getPort()), text, text.length());
            assertEquals(text, loop.runUntilComplete(LoopFuture.from(socat, loop)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll"})
    void socatIsAnsweredByTheUnixEcho(String backend) throws Exception {
        assumeInstalled("socat");
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            UnixDomainSocketAddress path = UnixDomainSocketAddress.of(dir.resolve("echo.sock"));
            UnixEcho.start(loop, path, true, Unix.Stale.FAIL);
            String lines = "one\ntwo\n";
            String expected = "Got: one\nGot: two\n";
            CompletableFuture<String> socat = client(List.of("socat", "-t", "10", "-", "UNIX-CONNECT:" + path.getPath()),
                    lines, expected.length());
            assertEquals(expected, loop.runUntilComplete(LoopFuture.from(socat, loop)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll"})
    void curlGetsAnHttpAnswerOverAUnixSocket(String backend) throws Exception {
        assumeInstalled("curl");
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            Path path = dir.resolve("http.sock");
            Server server = Unix.listen(loop, UnixDomainSocketAddress.of(path), c -> loop.spawn(() -> {
                // one request: read its head, answer, close (enough for curl; not an HTTP server)
                dev.loop.Async.await(c.readUntil("\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 8192));
                String body = "hello from " + backend + " over a unix socket\n";
                dev.loop.Async.await(c.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                        + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII)));
                return c.close();
            }));
            String expected = "hello from " + backend + " over a unix socket\n";
            CompletableFuture<String> curl = client(List.of("curl", "-sS", "--max-time", "10", "--unix-socket",
                    path.toString(), "http://localhost/"), "", expected.length());
            assertEquals(expected, loop.runUntilComplete(LoopFuture.from(curl, loop)));
            server.close();
        }
    }
}
