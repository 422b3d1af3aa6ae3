package dev.loop.examples.http;

import static dev.loop.examples.ExternalTools.assumeInstalled;
import static dev.loop.examples.ExternalTools.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.ExternalTools.Result;
import dev.loop.testkit.Cell;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files as RFC 9110 has them revalidated and fetched in part: {@code ETag}, {@code Last-Modified},
 * {@code If-Match}, {@code If-Unmodified-Since}, {@code If-None-Match}, {@code If-Modified-Since},
 * {@code Range}, {@code If-Range}, through the
 * JDK's HttpClient and curl, with reads on the loop and offloaded, on every backend with sockets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpFilesTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final Instant MTIME = Instant.parse("2020-01-02T03:04:05.123456789Z");
    private static final String LAST_MODIFIED = "Thu, 02 Jan 2020 03:04:05 GMT";

    @TempDir
    Path tmp;

    private byte[] small;
    private byte[] large;

    private Path www() throws Exception {
        Path www = Files.createDirectories(tmp.resolve("www"));
        small = new byte[1000];
        large = new byte[1_500_000]; // past StaticFiles.SMALL_FILE: its ranges are streamed
        Random random = new Random(11);
        random.nextBytes(small);
        random.nextBytes(large);
        for (String[] f : new String[][] {{"small.bin"}, {"large.bin"}, {"empty.txt"}}) {
            Path p = www.resolve(f[0]);
            Files.write(p, f[0].startsWith("small") ? small : f[0].startsWith("large") ? large : new byte[0]);
            Files.setLastModifiedTime(p, FileTime.from(MTIME));
        }
        return www;
    }

    private static HttpServer start(Cell cell, Path www, boolean offload) throws Exception {
        return HttpServer.start(HttpServer.Config.defaults().withDir(www, offload).withAddress(ANY_PORT)
                .withBackend(cell.backend()));
    }

    private static HttpResponse<byte[]> get(HttpClient client, HttpServer server, String method, String path,
                                            String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.address().getPort()
                + path)).timeout(WAIT).method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), BodyHandlers.ofByteArray());
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void validatorsAndPreconditionsGive304Or412(Cell cell) throws Exception {
        Path www = www();
        for (boolean offload : new boolean[] {false, true}) {
            try (HttpServer server = start(cell, www, offload);
                 HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
                String what = "offload " + offload;
                HttpResponse<byte[]> full = get(client, server, "GET", "/small.bin");
                assertEquals(200, full.statusCode(), what);
                assertArrayEquals(small, full.body(), what);
                assertEquals(LAST_MODIFIED, header(full, "Last-Modified"), what);
                assertEquals("bytes", header(full, "Accept-Ranges"), what);
                String etag = header(full, "ETag");
                assertTrue(etag.matches("\"[0-9a-f]+-[0-9a-f]+\""), "a strong tag: " + etag);

                String[][] notModified = {
                    {"If-None-Match", etag},
                    {"If-None-Match", "W/" + etag}, // weak comparison
                    {"If-None-Match", "\"other\", W/\"x\"," + etag + " ,"},
                    {"If-None-Match", "*"},
                    {"If-None-Match", "\"x\", ".repeat(1500) + etag}, // a long list is walked once
                    {"If-Modified-Since", LAST_MODIFIED},
                    {"If-Modified-Since", "Thu, 02 Jan 2020 03:04:06 GMT"},
                    {"If-Modified-Since", "Thursday, 02-Jan-20 03:04:05 GMT"}, // RFC 850, two-digit year
                    {"If-Modified-Since", "Thu Jan  2 03:04:05 2020"},         // asctime
                };
                for (String[] h : notModified) {
                    HttpResponse<byte[]> r = get(client, server, "GET", "/small.bin", h);
                    assertEquals(304, r.statusCode(), what + ": " + Arrays.toString(h));
                    assertEquals(0, r.body().length);
                    assertEquals(etag, header(r, "ETag"), "a 304 carries the validators");
                    assertEquals(LAST_MODIFIED, header(r, "Last-Modified"));
                    assertEquals(null, header(r, "Content-Type"), "and no content metadata");
                }
                assertEquals(304, get(client, server, "HEAD", "/small.bin", "If-None-Match", etag).statusCode());
                assertEquals(304, get(client, server, "GET", "/large.bin", "If-Modified-Since", LAST_MODIFIED).statusCode());

                String[][] modified = {
                    {"If-None-Match", "\"other\""},
                    {"If-None-Match", "\"other\"", "If-Modified-Since", LAST_MODIFIED}, // If-None-Match decides alone
                    {"If-None-Match", etag + " garbage"},                               // malformed: matches nothing
                    {"If-None-Match", "*, " + etag},
                    {"If-Modified-Since", "Thu, 02 Jan 2020 03:04:04 GMT"},
                    {"If-Modified-Since", "yesterday"},                                 // invalid dates are ignored
                    {"If-Modified-Since", "Sun, 30 Feb 2020 03:04:05 GMT"},
                    {"If-Modified-Since", imf(ZonedDateTime.now(ZoneOffset.UTC).plusDays(2))}, // and future ones
                    {"If-Modified-Since", LAST_MODIFIED, "If-Modified-Since", LAST_MODIFIED}, // two: ignored
                    {"If-Match", etag},
                    {"If-Match", "\"other\", " + etag},
                    {"If-Match", "*"},
                    {"If-Unmodified-Since", LAST_MODIFIED},
                    {"If-Unmodified-Since", "not a date"},
                    {"If-Match", etag, "If-Unmodified-Since", "Thu, 02 Jan 2020 03:04:04 GMT"}, // If-Match decides
                };
                for (String[] h : modified) {
                    HttpResponse<byte[]> r = get(client, server, "GET", "/small.bin", h);
                    assertEquals(200, r.statusCode(), what + ": " + Arrays.toString(h));
                    assertArrayEquals(small, r.body());
                }

                String[][] failed = {
                    {"If-Match", "\"other\""},
                    {"If-Match", "W/" + etag},                  // If-Match compares strongly
                    {"If-Match", etag + " garbage"},            // a malformed list holds nothing
                    {"If-Match", "\"other\"", "If-None-Match", "\"x\""},
                    {"If-Unmodified-Since", "Thu, 02 Jan 2020 03:04:04 GMT"},
                };
                for (String[] h : failed) {
                    HttpResponse<byte[]> r = get(client, server, "GET", "/small.bin", h);
                    assertEquals(412, r.statusCode(), what + ": " + Arrays.toString(h));
                    assertEquals(etag, header(r, "ETag"));
                }

                Files.setLastModifiedTime(www.resolve("small.bin"), FileTime.from(MTIME.plusNanos(1)));
                HttpResponse<byte[]> changed = get(client, server, "GET", "/small.bin", "If-None-Match", etag);
                assertEquals(200, changed.statusCode(), "a new modification time is a new tag");
                assertNotEquals(etag, header(changed, "ETag"));
                Files.setLastModifiedTime(www.resolve("small.bin"), FileTime.from(MTIME));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void rangesGive206OrTheWholeFileOr416(Cell cell) throws Exception {
        Path www = www();
        for (boolean offload : new boolean[] {false, true}) {
            try (HttpServer server = start(cell, www, offload);
                 HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
                String what = "offload " + offload;
                String etag = header(get(client, server, "HEAD", "/small.bin"), "ETag");
                Object[][] partial = { // Range, first byte, last byte
                    {"bytes=0-99", 0, 99},
                    {"bytes=-10", 990, 999},
                    {"bytes=990-", 990, 999},
                    {"BYTES=5-5", 5, 5},
                    {"bytes=0-99999999999999999999999", 0, 999},   // past a long: the end of the file
                    {"bytes=-99999999999999999999999", 0, 999},
                    {"bytes=0-1, 5000-6000", 0, 1},                // the one satisfiable range
                    {"bytes= 10-19", 10, 19},
                };
                for (Object[] p : partial) {
                    HttpResponse<byte[]> r = get(client, server, "GET", "/small.bin", "Range", (String) p[0]);
                    int first = (int) p[1];
                    int last = (int) p[2];
                    assertEquals(206, r.statusCode(), what + ": " + p[0]);
                    assertEquals("bytes " + first + "-" + last + "/1000", header(r, "Content-Range"), (String) p[0]);
                    assertArrayEquals(Arrays.copyOfRange(small, first, last + 1), r.body(), (String) p[0]);
                    assertEquals(etag, header(r, "ETag"));
                }
                String[][] whole = {
                    {"Range", "bytes=5-2"},                       // invalid: ignored
                    {"Range", "items=0-1"},                       // another unit: ignored
                    {"Range", "bytes=0-1,5-6"},                   // several: the whole file (no multipart)
                    {"Range", "bytes=" + "0-0,".repeat(3000)},    // thousands of ranges: the same, bounded
                    {"Range", "bytes=-"},
                    {"Range", "bytes=1-2", "Range", "bytes=3-4"},     // a singleton twice: ignored
                    {"Range", "bytes=0-9", "If-Range", "\"other\""},  // the file changed: all of it
                    {"Range", "bytes=0-9", "If-Range", "W/" + etag},  // If-Range compares strongly
                    {"Range", "bytes=0-9", "If-Range", "Fri, 03 Jan 2020 03:04:05 GMT"},
                    {"Range", "bytes=0-9", "If-Range", "not a validator"},
                };
                for (String[] h : whole) {
                    HttpResponse<byte[]> r = get(client, server, "GET", "/small.bin", h);
                    assertEquals(200, r.statusCode(), what + ": " + Arrays.toString(h));
                    assertArrayEquals(small, r.body());
                    assertEquals(null, header(r, "Content-Range"));
                }
                for (String ifRange : new String[] {etag, LAST_MODIFIED}) {
                    HttpResponse<byte[]> r = get(client, server, "GET", "/small.bin", "Range", "bytes=0-9",
                            "If-Range", ifRange);
                    assertEquals(206, r.statusCode(), ifRange);
                    assertArrayEquals(Arrays.copyOf(small, 10), r.body());
                }
                for (String range : new String[] {"bytes=1000-", "bytes=99999999999999999999-", "bytes=-0",
                                                  "bytes=2000-3000,4000-"}) {
                    HttpResponse<byte[]> r = get(client, server, "GET", "/small.bin", "Range", range);
                    assertEquals(416, r.statusCode(), what + ": " + range);
                    assertEquals("bytes */1000", header(r, "Content-Range"), range);
                }
                HttpResponse<byte[]> empty = get(client, server, "GET", "/empty.txt", "Range", "bytes=0-");
                assertEquals(416, empty.statusCode());
                assertEquals("bytes */0", header(empty, "Content-Range"));

                HttpResponse<byte[]> head = get(client, server, "HEAD", "/small.bin", "Range", "bytes=0-9");
                assertEquals(200, head.statusCode(), "ranges are for GET only (RFC 9110, 14.2)");
                assertEquals("1000", header(head, "Content-Length"));
                assertEquals(etag, header(head, "ETag"));
                assertEquals("bytes", header(head, "Accept-Ranges"));

                HttpResponse<byte[]> streamed = get(client, server, "GET", "/large.bin", "Range", "bytes=100000-1199999");
                assertEquals(206, streamed.statusCode(), what);
                assertEquals("bytes 100000-1199999/1500000", header(streamed, "Content-Range"));
                assertArrayEquals(Arrays.copyOfRange(large, 100_000, 1_200_000), streamed.body(), what);
                HttpResponse<byte[]> tail = get(client, server, "GET", "/large.bin", "Range", "bytes=-70000");
                assertArrayEquals(Arrays.copyOfRange(large, large.length - 70_000, large.length), tail.body(), what);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void theJdkClientThroughAProxySendsTheAbsoluteFormAndIsAnswered(Cell cell) throws Exception {
        try (HttpServer server = start(cell, www(), false);
             HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                     .proxy(ProxySelector.of(server.address())).build()) {
            // the server is its own proxy: the request line is "GET http://127.0.0.1:PORT/... HTTP/1.1"
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + server.address().getPort() + "/plaintext")).timeout(WAIT).build(), BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("Hello, World!", r.body());
            HttpResponse<byte[]> f = get(client, server, "GET", "/small.bin", "Range", "bytes=1-2");
            assertEquals(206, f.statusCode());
            assertArrayEquals(Arrays.copyOfRange(small, 1, 3), f.body());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void curlThroughAProxyWithRangesResumesAndConditions(Cell cell) throws Exception {
        assumeInstalled("curl", "curl");
        Path www = www();
        try (HttpServer server = start(cell, www, false)) {
            String base = "http://127.0.0.1:" + server.address().getPort();
            Result proxied = run(WAIT, "curl", "-sS", "-v", "-x", base, base + "/plaintext");
            assertEquals(0, proxied.exit(), proxied.toString());
            assertEquals("Hello, World!", proxied.out());
            assertTrue(proxied.err().contains("> GET " + base + "/plaintext HTTP/1.1"), proxied.err());

            Path part = tmp.resolve("part");
            Result ranged = run(WAIT, "curl", "-sS", "--range", "0-99", "-o", part.toString(), "-w", "%{http_code}",
                    base + "/small.bin");
            assertEquals("206", ranged.out(), ranged.toString());
            assertArrayEquals(Arrays.copyOf(small, 100), Files.readAllBytes(part));

            Path resumed = Files.write(tmp.resolve("resumed"), Arrays.copyOf(large, 600_000));
            Result resume = run(WAIT, "curl", "-sS", "-C", "-", "-o", resumed.toString(), "-w", "%{http_code}",
                    base + "/large.bin");
            assertEquals("206", resume.out(), resume.toString());
            assertArrayEquals(large, Files.readAllBytes(resumed), "curl -C - fetched the rest");

            Result since = run(WAIT, "curl", "-sS", "-z", LAST_MODIFIED, "-o", "/dev/null", "-w", "%{http_code}",
                    base + "/small.bin");
            assertEquals("304", since.out(), since.toString());
            Result older = run(WAIT, "curl", "-sS", "-z", "Thu, 02 Jan 2020 03:04:04 GMT", "-o", "/dev/null",
                    "-w", "%{http_code}", base + "/small.bin");
            assertEquals("200", older.out(), older.toString());
            // "-DATE" sends If-Unmodified-Since; curl reports a failed time condition as 304 itself, so the
            // server's own status is read from the trace
            Result unmodified = run(WAIT, "curl", "-sS", "-v", "-z", "-Thu, 02 Jan 2020 03:04:04 GMT", "-o",
                    "/dev/null", base + "/small.bin");
            assertTrue(unmodified.err().contains("> If-Unmodified-Since: Thu, 02 Jan 2020 03:04:04 GMT"), unmodified.err());
            assertTrue(unmodified.err().contains("< HTTP/1.1 412 Precondition Failed"), unmodified.err());

            Result head = run(WAIT, "curl", "-sS", "-I", base + "/small.bin");
            String etag = head.out().lines().filter(l -> l.startsWith("ETag: ")).findFirst().orElseThrow().substring(6);
            Result match = run(WAIT, "curl", "-sS", "-H", "If-None-Match: " + etag, "-o", "/dev/null", "-w",
                    "%{http_code}", base + "/small.bin");
            assertEquals("304", match.out(), match.toString());
        }
    }

    private static String imf(ZonedDateTime t) {
        return DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).format(t);
    }
}
