package dev.loop.examples.http;

import static dev.loop.examples.http.RawHttp.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.ExternalTools;
import dev.loop.testkit.Cell;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTTP server driven over raw JDK sockets: what well-behaved clients never send (malformed,
 * oversized, pipelined without reading), each on every backend with sockets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpProtocolTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    static HttpServer start(Cell cell, HttpServer.Config config) throws Exception {
        return HttpServer.start(config.withAddress(ANY_PORT).withBackend(cell.backend()));
    }

    static HttpServer start(Cell cell) throws Exception {
        return start(cell, HttpServer.Config.defaults());
    }

    /** A request the server must refuse with {@code status} and then close. */
    record Refused(String what, String request, int status) {
        @Override
        public String toString() {
            return what;
        }
    }

    static final List<Refused> REFUSED = List.of(
            new Refused("not HTTP", "GARBAGE\r\n\r\n", 400),
            new Refused("no Host in HTTP/1.1", "GET /plaintext HTTP/1.1\r\n\r\n", 400),
            new Refused("HTTP/2.0 in text", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            new Refused("HTTP/3.0", "GET /plaintext HTTP/3.0\r\nHost: x\r\n\r\n", 505),
            new Refused("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
            new Refused("two-digit minor version", "GET /plaintext HTTP/1.10\r\nHost: x\r\n\r\n", 400),
            new Refused("version without minor", "GET /plaintext HTTP/1\r\nHost: x\r\n\r\n", 400),
            new Refused("lower-case version", "GET /plaintext http/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("Host with a space", "GET /plaintext HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
            new Refused("Host with a port not digits", "GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1:abc\r\n\r\n", 400),
            new Refused("Host with userinfo", "GET /plaintext HTTP/1.1\r\nHost: user@host\r\n\r\n", 400),
            new Refused("Host with two ports", "GET /plaintext HTTP/1.1\r\nHost: host:80:81\r\n\r\n", 400),
            new Refused("Host with a broken IPv6 literal", "GET /plaintext HTTP/1.1\r\nHost: [::1:8080\r\n\r\n", 400),
            new Refused("Host with an IPv6 literal of nine groups", "GET /plaintext HTTP/1.1\r\nHost: [1:2:3:4:5:6:7:8:9]\r\n\r\n",
                    400),
            new Refused("Host with a bad percent-encoding", "GET /plaintext HTTP/1.1\r\nHost: a%zz\r\n\r\n", 400),
            new Refused("two Host headers", "GET /plaintext HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400),
            new Refused("absolute target without Host", "GET http://x/plaintext HTTP/1.1\r\n\r\n", 400),
            new Refused("absolute target with userinfo", "GET http://u:p@x/plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("absolute target with an empty host", "GET http:///plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("absolute target with a bad port", "GET http://x:8o/plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("absolute target, scheme not http", "GET ftp://x/plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("relative target", "GET plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("asterisk with GET", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("authority form with GET", "GET x:80 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("CONNECT with a path", "CONNECT /plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("CONNECT without a port", "CONNECT x HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("CONNECT with an empty port", "CONNECT x: HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("space before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
            new Refused("folded header", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n", 400),
            new Refused("control character in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n", 400),
            new Refused("request line too long", "GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            new Refused("too many headers", "GET / HTTP/1.1\r\nHost: x\r\n" + "X-A: 1\r\n".repeat(101) + "\r\n", 431),
            new Refused("head too large", "GET / HTTP/1.1\r\nHost: x\r\n" + ("X-A: " + "b".repeat(4000) + "\r\n").repeat(5)
                    + "\r\n", 431),
            new Refused("declared body too large", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413),
            new Refused("chunked body too large", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "100000\r\n" + "c".repeat(0x100000) + "\r\n" + "100000\r\n", 413),
            new Refused("bad Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 12a\r\n\r\n", 400),
            new Refused("two Content-Lengths", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                    + "Content-Length: 2\r\n\r\nab", 400),
            new Refused("Content-Length and chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            new Refused("unknown transfer coding", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            new Refused("bad chunk size", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            new Refused("chunk longer than its size", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "2\r\nabc\r\n0\r\n\r\n", 400),
            new Refused("trailer line without a colon, then a request", chunkedEcho("bad trailer\r\n\r\n")
                    + "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("request where the trailers' blank line belongs", chunkedEcho("")
                    + "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            new Refused("space before a trailer's colon", chunkedEcho("X-T : 1\r\n\r\n"), 400),
            new Refused("folded trailer", chunkedEcho("X-T: 1\r\n 2\r\n\r\n"), 400),
            new Refused("control character in a trailer", chunkedEcho("X-T: a\u0001b\r\n\r\n"), 400),
            new Refused("CR without LF in a trailer", chunkedEcho("X-T: a\rb\r\n\r\n"), 400),
            new Refused("too many trailers", chunkedEcho("X-T: 1\r\n".repeat(101) + "\r\n"), 431),
            new Refused("unknown expectation", "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\na", 417));

    /** A chunked POST whose trailer section is {@code trailers} (ending with its blank line, or not). */
    private static String chunkedEcho(String trailers) {
        return "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n" + trailers;
    }

    static List<Object[]> refusals() {
        return dev.loop.testkit.Matrix.groups().flatMap(c -> REFUSED.stream().map(r -> new Object[] {c, r})).toList();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("refusals")
    void malformedOrOversizedRequestsGetTheirStatusAndTheConnectionCloses(Cell cell, Refused r) throws Exception {
        try (HttpServer server = start(cell)) {
            byte[] answer = ExternalTools.sendAndReadToEnd(server.address(), ascii(r.request()), WAIT);
            InputStream in = new ByteArrayInputStream(answer);
            RawHttp.Response resp = RawHttp.read(in);
            assertNotNull(resp, r.what() + ": no answer");
            assertEquals(r.status(), resp.status(), r.what() + ": " + resp.text());
            assertEquals("close", resp.header("Connection"), r.what());
            assertTrue(resp.text().startsWith(r.status() + " "), resp.text());
            assertNull(RawHttp.read(in), r.what() + ": nothing may follow the refusal");
        }
    }

    /**
     * What RFC 9112 and 9110 say a server accepts, pipelined on one connection: the absolute form
     * (its authority replacing Host), every shape the Host grammar allows, later HTTP/1.x minor
     * versions answered as 1.1, OPTIONS *, trailers that are field lines; and CONNECT, refused
     * with a 405 and a close.
     */
    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void targetFormsHostsVersionsAndTrailersTheRfcsAllowAreAnswered(Cell cell) throws Exception {
        try (HttpServer server = start(cell)) {
            String self = "127.0.0.1:" + server.address().getPort();
            String hello = "Hello, World!";
            String json = "{\"message\":\"Hello, World!\"}";
            String chunked = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n";
            String[][] cases = {
                {"GET http://" + self + "/plaintext HTTP/1.1\r\nHost: " + self + "\r\n\r\n", "200", hello},
                {"GET HTTP://other.example/json?q=1 HTTP/1.1\r\nHost: not-the-target.example\r\n\r\n", "200", json},
                {"GET https://[::1]:8443/plaintext HTTP/1.1\r\nHost: x\r\n\r\n", "200", hello},
                {"GET http://x?q HTTP/1.1\r\nHost: x\r\n\r\n", "404", null}, // no path is "/", and no files here
                {"GET /plaintext HTTP/1.2\r\nHost: x\r\n\r\n", "200", hello},
                {"GET /json HTTP/1.9\r\nHost: x\r\n\r\n", "200", json},
                {"GET /plaintext HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", "200", hello},
                {"GET /plaintext HTTP/1.1\r\nHost: [::ffff:127.0.0.1]\r\n\r\n", "200", hello},
                {"GET /plaintext HTTP/1.1\r\nHost: [v1.fe:x]\r\n\r\n", "200", hello},
                {"GET /plaintext HTTP/1.1\r\nHost: example.com:\r\n\r\n", "200", hello}, // port = *DIGIT
                {"GET /plaintext HTTP/1.1\r\nHost:\r\n\r\n", "200", hello}, // empty: a reg-name may be
                {"GET /plaintext HTTP/1.1\r\nHost: ex%41mple.com:65535\r\n\r\n", "200", hello},
                {"GET /plaintext HTTP/1.1\r\nHost: a-b_c~d!$&'()*+,;=.example\r\n\r\n", "200", hello},
                {"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", "200", ""},
                {"OPTIONS http://x:1 HTTP/1.1\r\nHost: x\r\n\r\n", "200", ""},
                {chunked + "X-A: 1\r\nX-Empty:\r\nx-tab:\ta\tb \r\n\r\n", "200", "abc"},
                {chunked + "X-A: 1\n\n", "200", "abc"}, // bare LF, as the head parser takes it
                {"CONNECT " + self + " HTTP/1.1\r\nHost: " + self + "\r\n\r\n", "405", null},
                {"GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n", "never answered", null},
            };
            StringBuilder batch = new StringBuilder();
            for (String[] c : cases) {
                batch.append(c[0]);
            }
            InputStream in = new ByteArrayInputStream(ExternalTools.sendAndReadToEnd(server.address(),
                    ascii(batch.toString()), WAIT));
            for (String[] c : cases) {
                if (c[1].equals("never answered")) {
                    assertNull(RawHttp.read(in), "nothing after the answer to CONNECT");
                    continue;
                }
                RawHttp.Response r = RawHttp.read(in); // which also checks the answer is HTTP/1.1
                assertNotNull(r, c[0]);
                assertEquals(Integer.parseInt(c[1]), r.status(), c[0] + " -> " + r.text());
                if (c[2] != null) {
                    assertEquals(c[2], r.text(), c[0]);
                }
                if (c[0].startsWith("OPTIONS") || c[0].startsWith("CONNECT")) {
                    assertEquals("GET, HEAD, POST, OPTIONS", r.header("Allow"), c[0]);
                }
                assertEquals(c[0].startsWith("CONNECT") ? "close" : null, r.header("Connection"), c[0]);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void pipelinedRequestsAreAnsweredInOrderAndConnectionCloseEndsThem(Cell cell) throws Exception {
        try (HttpServer server = start(cell)) {
            String batch = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /json HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                    + "HEAD /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /plaintext HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nxy"
                    + "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    + "GET /never-answered HTTP/1.1\r\nHost: x\r\n\r\n";
            InputStream in = new ByteArrayInputStream(ExternalTools.sendAndReadToEnd(server.address(), ascii(batch), WAIT));
            RawHttp.Response plain = RawHttp.read(in);
            assertEquals(200, plain.status());
            assertEquals("Hello, World!", plain.text());
            assertEquals("text/plain", plain.header("Content-Type"));
            assertEquals("loop", plain.header("Server"));
            assertTrue(plain.header("Date").matches("\\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT"), plain.header("Date"));
            RawHttp.Response json = RawHttp.read(in);
            assertEquals("{\"message\":\"Hello, World!\"}", json.text());
            assertEquals("application/json", json.header("Content-Type"));
            assertEquals("hello", RawHttp.read(in).text());
            RawHttp.Response head = RawHttp.read(in, true);
            assertEquals(200, head.status());
            assertEquals("13", head.header("Content-Length"));
            assertEquals(404, RawHttp.read(in).status());
            RawHttp.Response notAllowed = RawHttp.read(in);
            assertEquals(405, notAllowed.status());
            assertEquals("GET, HEAD", notAllowed.header("Allow"));
            RawHttp.Response last = RawHttp.read(in);
            assertEquals(200, last.status());
            assertEquals("close", last.header("Connection"));
            assertNull(RawHttp.read(in), "the request after Connection: close must not be answered");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void aClientThatPipelinesWithoutReadingGetsEveryAnswerOnceItReads(Cell cell) throws Exception {
        int n = 40_000; // about 2 MB of answers: far past the connection's high watermark
        try (HttpServer server = start(cell); Socket s = ExternalTools.connect(server.address(), WAIT)) {
            byte[] one = ascii("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n");
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream o = s.getOutputStream();
                    byte[] batch = new byte[one.length * 100];
                    for (int i = 0; i < 100; i++) {
                        System.arraycopy(one, 0, batch, i * one.length, one.length);
                    }
                    for (int i = 0; i < n / 100; i++) {
                        o.write(batch);
                    }
                    o.flush();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(200); // not a timing assumption: only lets the server fill the queue before we read
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            for (int i = 0; i < n; i++) {
                RawHttp.Response r = RawHttp.read(in);
                assertNotNull(r, "answer " + i + " missing");
                assertEquals("Hello, World!", r.text(), "answer " + i);
            }
            writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void bodiesInPiecesChunkedOrNotAreEchoedWhole(Cell cell) throws Exception {
        try (HttpServer server = start(cell); Socket s = ExternalTools.connect(server.address(), WAIT)) {
            OutputStream o = s.getOutputStream();
            InputStream in = s.getInputStream();
            String chunked = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;ext=1\r\nhello\r\n1\r\n,\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n";
            for (byte b : ascii(chunked)) {
                o.write(b); // one byte per write: every state of the decoder meets the end of its input
                o.flush();
            }
            assertEquals("hello, world", RawHttp.read(in).text());
            o.write(ascii("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234"));
            o.flush();
            Thread.sleep(50); // lets the first half arrive alone; correctness does not depend on it
            o.write(ascii("56789"));
            o.flush();
            assertEquals("0123456789", RawHttp.read(in).text());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void expectContinueGetsA100BeforeTheBodyIsSent(Cell cell) throws Exception {
        try (HttpServer server = start(cell); Socket s = ExternalTools.connect(server.address(), WAIT)) {
            OutputStream o = s.getOutputStream();
            InputStream in = s.getInputStream();
            o.write(ascii("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"));
            o.flush();
            RawHttp.Response cont = RawHttp.read(in, true);
            assertEquals(100, cont.status());
            o.write(ascii("body"));
            o.flush();
            assertEquals("body", RawHttp.read(in).text());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void http10ClosesUnlessAskedToKeepAlive(Cell cell) throws Exception {
        try (HttpServer server = start(cell)) {
            InputStream in = new ByteArrayInputStream(ExternalTools.sendAndReadToEnd(server.address(),
                    ascii("GET /plaintext HTTP/1.0\r\n\r\n"), WAIT));
            RawHttp.Response r = RawHttp.read(in);
            assertEquals("close", r.header("Connection"));
            assertNull(RawHttp.read(in));
            try (Socket s = ExternalTools.connect(server.address(), WAIT)) {
                for (int i = 0; i < 2; i++) {
                    s.getOutputStream().write(ascii("GET /json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
                    RawHttp.Response k = RawHttp.read(s.getInputStream());
                    assertEquals("keep-alive", k.header("Connection"));
                    assertEquals(200, k.status());
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void idleConnectionsAreClosedAndAHalfSentRequestGets408(Cell cell) throws Exception {
        HttpServer.Config c = HttpServer.Config.defaults()
                .withLimits(HttpLimits.defaults().withIdleTimeout(Duration.ofMillis(500))
                        .withHeadTimeout(Duration.ofMillis(500)));
        try (HttpServer server = start(cell, c)) {
            try (Socket idle = ExternalTools.connect(server.address(), WAIT)) {
                idle.getOutputStream().write(ascii("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
                assertEquals(200, RawHttp.read(idle.getInputStream()).status());
                assertEquals(-1, idle.getInputStream().read(), "an idle keep-alive connection is closed");
            }
            byte[] answer = ExternalTools.sendAndReadToEnd(server.address(), ascii("GET /plaintext HTTP/1.1\r\nHo"), WAIT);
            RawHttp.Response r = RawHttp.read(new ByteArrayInputStream(answer));
            assertEquals(408, r.status());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void aClientThatNeverReadsItsAnswersIsResetAfterTheIdleTimeout(Cell cell) throws Exception {
        HttpServer.Config c = HttpServer.Config.defaults()
                .withLimits(HttpLimits.defaults().withIdleTimeout(Duration.ofMillis(300)));
        try (HttpServer server = start(cell, c); Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(server.address());
            byte[] batch = ascii("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n".repeat(1000));
            CompletableFuture<Exception> writer = CompletableFuture.supplyAsync(() -> {
                try {
                    for (int i = 0; i < 100_000; i++) { // blocks once the server stops reading us
                        s.getOutputStream().write(batch);
                    }
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            Exception e = writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(e, "the server should have reset a client that does not read");
            assertTrue(e instanceof java.net.SocketException, e.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void theTaskStyleDriverAnswersLikeThePushStyleOne(Cell cell) throws Exception {
        try (HttpServer server = start(cell, HttpServer.Config.defaults().withStyle(HttpServer.Style.TASK))) {
            String batch = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n".repeat(50)
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                    + "GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            InputStream in = new ByteArrayInputStream(ExternalTools.sendAndReadToEnd(server.address(), ascii(batch), WAIT));
            for (int i = 0; i < 50; i++) {
                assertEquals("Hello, World!", RawHttp.read(in).text());
            }
            assertEquals("abc", RawHttp.read(in).text());
            assertArrayEquals(ascii("{\"message\":\"Hello, World!\"}"), RawHttp.read(in).body());
            assertNull(RawHttp.read(in));
            assertEquals(400, RawHttp.read(new ByteArrayInputStream(ExternalTools.sendAndReadToEnd(server.address(),
                    ascii("NOPE\r\n\r\n"), WAIT))).status());
        }
    }
}
