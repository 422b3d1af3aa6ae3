package dev.loop.examples.http;

import static dev.loop.examples.ExternalTools.assumeInstalled;
import static dev.loop.examples.ExternalTools.run;
import static dev.loop.examples.http.RawHttp.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.ExternalTools;
import dev.loop.examples.ExternalTools.Result;
import dev.loop.testkit.Cell;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The HTTP server driven by clients nobody here wrote: curl and wrk, on every backend with sockets. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpClientsTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @TempDir
    Path tmp;

    private static String url(HttpServer server, String path) {
        return "http://127.0.0.1:" + server.address().getPort() + path;
    }

    private static HttpServer start(Cell cell, HttpServer.Config c) throws Exception {
        return HttpServer.start(c.withAddress(ANY_PORT).withBackend(cell.backend()));
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void curlReusesOneKeepAliveConnectionForSeveralRequests(Cell cell) throws Exception {
        assumeInstalled("curl", "curl");
        try (HttpServer server = start(cell, HttpServer.Config.defaults())) {
            Result r = run(DEADLINE, "curl", "-sS", "-v", url(server, "/plaintext"), url(server, "/json"),
                    url(server, "/plaintext"));
            assertEquals(0, r.exit(), r.toString());
            assertEquals("Hello, World!{\"message\":\"Hello, World!\"}Hello, World!", r.out());
            assertTrue(r.err().contains("Re-using existing connection"), r.err());
            assertEquals(1, server.connectionsAccepted(), "three requests, one connection");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void curlUploadsAChunkedBodyAfter100Continue(Cell cell) throws Exception {
        assumeInstalled("curl", "curl");
        byte[] data = new byte[300_000];
        new Random(7).nextBytes(data);
        Path upload = Files.write(tmp.resolve("upload.bin"), data);
        Path echoed = tmp.resolve("echoed.bin");
        try (HttpServer server = start(cell, HttpServer.Config.defaults())) {
            Result r = run(DEADLINE, "curl", "-sS", "-v", "-H", "Transfer-Encoding: chunked", "-H", "Expect: 100-continue",
                    "--data-binary", "@" + upload, "-o", echoed.toString(), url(server, "/echo"));
            assertEquals(0, r.exit(), r.toString());
            assertTrue(r.err().contains("> Transfer-Encoding: chunked"), r.err());
            assertTrue(r.err().contains("< HTTP/1.1 100 Continue"), r.err());
            assertArrayEquals(data, Files.readAllBytes(echoed));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void curlHeadAndErrors(Cell cell) throws Exception {
        assumeInstalled("curl", "curl");
        try (HttpServer server = start(cell, HttpServer.Config.defaults()
                .withLimits(HttpLimits.defaults().withMaxBody(100_000)))) {
            Result head = run(DEADLINE, "curl", "-sS", "-I", url(server, "/plaintext"));
            assertEquals(0, head.exit(), head.toString());
            assertTrue(head.out().startsWith("HTTP/1.1 200 OK"), head.out());
            assertTrue(head.out().contains("Content-Length: 13"), head.out());
            assertFalse(head.out().contains("Hello"), head.out());

            assertEquals("404 405 ", codes(server, "/missing") + codes(server, "-X", "DELETE", "/plaintext"));

            Path big = Files.write(tmp.resolve("big.bin"), new byte[200_000]);
            Result tooBig = run(DEADLINE, "curl", "-sS", "-v", "--data-binary", "@" + big, url(server, "/echo"));
            assertEquals(0, tooBig.exit(), tooBig.toString());
            assertTrue(tooBig.err().contains("< HTTP/1.1 413"), tooBig.err());
            assertTrue(tooBig.err().contains("< Connection: close"), tooBig.err());
            assertTrue(tooBig.out().startsWith("413 body of 200000 bytes"), tooBig.out());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void curlGetsFilesReadOnTheLoopAndOffloaded(Cell cell) throws Exception {
        assumeInstalled("curl", "curl");
        Path www = Files.createDirectories(tmp.resolve("www"));
        Files.writeString(www.resolve("index.html"), "<h1>index</h1>");
        byte[] large = new byte[1_500_000]; // several chunks: streamed, not read whole
        new Random(3).nextBytes(large);
        Files.write(www.resolve("large.bin"), large);
        Files.createDirectories(www.resolve("sub dir"));
        Files.writeString(www.resolve("sub dir").resolve("a.txt"), "in a sub directory");
        Files.writeString(tmp.resolve("secret.txt"), "outside the served directory");
        Files.createSymbolicLink(www.resolve("escape.txt"), tmp.resolve("secret.txt"));
        for (boolean offload : new boolean[] {false, true}) {
            try (HttpServer server = start(cell, HttpServer.Config.defaults().withDir(www, offload).withLoops(2))) {
                Path got = tmp.resolve("got-" + offload);
                Result r = run(DEADLINE, "curl", "-sS", "-o", got.toString(), url(server, "/large.bin"));
                assertEquals(0, r.exit(), r.toString());
                assertArrayEquals(large, Files.readAllBytes(got), "offload " + offload);
                assertEquals("<h1>index</h1>in a sub directory", run(DEADLINE, "curl", "-sS", url(server, "/"),
                        url(server, "/sub%20dir/a.txt")).out());
                Result head = run(DEADLINE, "curl", "-sS", "-I", url(server, "/large.bin"));
                assertTrue(head.out().contains("Content-Length: 1500000"), head.out());
                String codes = codes(server, "--path-as-is", "/../secret.txt", "/sub%20dir/../../secret.txt",
                        "/%2e%2e/secret.txt", "/escape.txt", "/nothing.txt");
                assertEquals("403 403 403 403 404 ", codes, "offload " + offload);
                byte[] raw = ExternalTools.sendAndReadToEnd(server.address(),
                        ascii("GET /..%2fsecret.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), DEADLINE);
                RawHttp.Response refused = RawHttp.read(new ByteArrayInputStream(raw));
                assertEquals(403, refused.status());
                assertFalse(refused.text().contains("outside"), refused.text());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void wrkPipelinedAndNotGetsOnlySuccessfulAnswers(Cell cell) throws Exception {
        assumeInstalled("wrk", "wrk");
        Path script = Path.of("src/test/resources/pipeline.lua").toAbsolutePath();
        try (HttpServer server = start(cell, HttpServer.Config.defaults())) {
            assertClean(run(DEADLINE, "wrk", "-t", "1", "-c", "4", "-d", "2s", "-s", script.toString(),
                    url(server, "/plaintext"), "--", "16"));
            assertClean(run(DEADLINE, "wrk", "-t", "1", "-c", "4", "-d", "1s", url(server, "/json")));
        }
    }

    /** The status codes curl got for {@code paths}, each followed by a space; options start with '-'. */
    private static String codes(HttpServer server, String... optionsAndPaths) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("curl", "-sS", "-w", "%{http_code} "));
        for (int i = 0; i < optionsAndPaths.length; i++) {
            String a = optionsAndPaths[i];
            if (a.equals("-X")) {
                cmd.add(a);
                cmd.add(optionsAndPaths[++i]);
            } else if (a.startsWith("-")) {
                cmd.add(a);
            } else {
                cmd.addAll(java.util.List.of("-o", "/dev/null", url(server, a)));
            }
        }
        Result r = run(DEADLINE, cmd.toArray(String[]::new));
        assertEquals(0, r.exit(), r.toString());
        return r.out();
    }

    /** wrk's summary: requests done, and no socket errors or non-2xx answers. */
    private static void assertClean(Result r) {
        assertEquals(0, r.exit(), r.toString());
        Matcher m = Pattern.compile("(\\d+) requests in").matcher(r.out());
        assertTrue(m.find(), r.out());
        assertTrue(Long.parseLong(m.group(1)) > 0, r.out());
        assertFalse(r.out().contains("Socket errors"), r.out());
        assertFalse(r.out().contains("Non-2xx"), r.out());
    }
}
