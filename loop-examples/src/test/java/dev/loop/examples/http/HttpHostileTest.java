package dev.loop.examples.http;

import static dev.loop.examples.Footprint.assertHeapWithin;
import static dev.loop.examples.Footprint.awaitDescriptors;
import static dev.loop.examples.Footprint.closeAll;
import static dev.loop.examples.Footprint.liveHeap;
import static dev.loop.examples.Footprint.loudLines;
import static dev.loop.examples.http.RawHttp.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.ExternalTools;
import dev.loop.testkit.Cell;
import dev.loop.testkit.Fds;
import dev.loop.testkit.LogCapture;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTTP server against clients that trickle, lie about lengths, send garbage or never read, a
 * few hundred at a time, on every backend with sockets: each phase they control ends at its
 * deadline, each bad request gets its status and a close, what they make the server hold stays
 * bounded, nothing is logged per client, descriptors come back, and a polite client is served
 * throughout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpHostileTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long MiB = 1024 * 1024;
    private static final Duration DEADLINE = Duration.ofMillis(300);

    private static HttpServer.Config shortDeadlines() {
        return HttpServer.Config.defaults().withLimits(HttpLimits.defaults().withHeadTimeout(DEADLINE)
                .withBodyTimeout(DEADLINE));
    }

    /** The JDK's client on a connection of its own, and curl when it is installed. */
    private static void politeClientIsServed(HttpServer server) throws Exception {
        String base = "http://127.0.0.1:" + server.address().getPort();
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            var r = client.send(java.net.http.HttpRequest.newBuilder(URI.create(base + "/plaintext")).timeout(WAIT)
                    .build(), BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("Hello, World!", r.body());
        }
        if (ExternalTools.find("curl") != null) {
            ExternalTools.Result r = ExternalTools.run(WAIT, "curl", "-sS", "-m", "10", base + "/json");
            assertEquals("{\"message\":\"Hello, World!\"}", r.out(), r.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void trickledHeadsAndBodiesAreCutOffAtTheirDeadline(Cell cell) throws Exception {
        try (LogCapture log = LogCapture.start("dev.loop");
             HttpServer server = HttpProtocolTest.start(cell, shortDeadlines())) {
            politeClientIsServed(server);
            long fds = Fds.count();
            List<Socket> peers = new ArrayList<>();
            int n = 100;
            try {
                for (int i = 0; i < n; i++) {
                    Socket s = ExternalTools.connect(server.address(), WAIT);
                    peers.add(s);
                    // half begin a head, half a body that never comes whole; then all trickle
                    s.getOutputStream().write(ascii(i % 2 == 0 ? "GET /plaintext HTTP/1.1\r\nX-Slow: "
                            : "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nslow"));
                }
                long start = System.nanoTime();
                // a byte per peer every 20 ms for 1.2 s: every byte would restart an idle timer, and
                // the idle timeout (30 s) is not what ends them
                for (int round = 0; round < 60; round++) {
                    for (Socket s : peers) {
                        try {
                            s.getOutputStream().write('a');
                        } catch (java.io.IOException answeredAndClosed) {
                            // the server gave up on this one already
                        }
                    }
                    Thread.sleep(20); // the trickle's pace: the peer's clock, not the server's
                }
                politeClientIsServed(server);
                for (Socket s : peers) {
                    byte[] answer = s.getInputStream().readAllBytes(); // its output shut, the server waits for ours
                    RawHttp.Response r = RawHttp.read(new ByteArrayInputStream(answer));
                    assertEquals(408, r.status(), new String(answer, java.nio.charset.StandardCharsets.ISO_8859_1));
                    s.shutdownOutput();
                }
                long took = System.nanoTime() - start;
                assertTrue(took < WAIT.toNanos(), "answered after " + took / 1_000_000 + " ms");
            } finally {
                closeAll(peers);
            }
            assertEquals(n, server.requestsRefused());
            awaitDescriptors(fds, WAIT);
            assertEquals(List.of(), loudLines(log), "a client kept waiting too long is counted, not logged");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void declaredLengthsCostNothingUntilTheirBytesArrive(Cell cell) throws Exception {
        try (LogCapture log = LogCapture.start("dev.loop"); HttpServer server = HttpProtocolTest.start(cell)) {
            politeClientIsServed(server);
            long fds = Fds.count();
            long heap = liveHeap();
            List<Socket> peers = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    Socket s = ExternalTools.connect(server.address(), WAIT);
                    peers.add(s);
                    // each declares just under the 1 MiB limit, by Content-Length or by one chunk
                    s.getOutputStream().write(ascii(i % 2 == 0
                            ? "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048000\r\n\r\nabc"
                            : "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFF0\r\nabc"));
                }
                politeClientIsServed(server);
                // 200 MiB were declared: a body's buffer grows with its bytes only
                assertHeapWithin(heap, 32 * MiB, "200 clients declaring bodies of 1 MiB");
            } finally {
                closeAll(peers);
            }
            awaitDescriptors(fds, WAIT);
            assertHeapWithin(heap, 8 * MiB, "after the liars left");
            assertEquals(List.of(), loudLines(log));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void badLengthsAndGarbageGetTheirStatusAndACloseWithoutALogLine(Cell cell) throws Exception {
        String post = "POST /echo HTTP/1.1\r\nHost: x\r\n";
        Object[][] cases = {
            {post + "Content-Length: 2000000\r\n\r\n", 413},
            {post + "Content-Length: 99999999999999999999999\r\n\r\n", 413},
            {post + "Content-Length: 12abc\r\n\r\n", 400},
            {post + "Content-Length: -1\r\n\r\n", 400},
            {post + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n", 400}, // overflows 63 bits
            {post + "Transfer-Encoding: chunked\r\n\r\n7FFFFFFFFFFFFFFF\r\n", 413},
            {post + "Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n7FFFFFFFFFFFFFFF\r\n", 413}, // the sum must not wrap
            {post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
            {"\u0000\u0001\u0002 garbage\r\n\r\n", 400},
        };
        try (LogCapture log = LogCapture.start("dev.loop"); HttpServer server = HttpProtocolTest.start(cell)) {
            politeClientIsServed(server);
            long fds = Fds.count();
            int n = 270;
            List<Socket> peers = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) {
                    Socket s = ExternalTools.connect(server.address(), WAIT);
                    peers.add(s);
                    s.getOutputStream().write(ascii((String) cases[i % cases.length][0]));
                    s.shutdownOutput(); // the server's linger ends at our end of input, at once
                }
                for (int i = 0; i < n; i++) {
                    InputStream in = new ByteArrayInputStream(peers.get(i).getInputStream().readAllBytes());
                    assertEquals(cases[i % cases.length][1], RawHttp.read(in).status(), (String) cases[i % cases.length][0]);
                    assertNull(RawHttp.read(in), "nothing after the refusal");
                }
                politeClientIsServed(server);
            } finally {
                closeAll(peers);
            }
            assertEquals(n, server.requestsRefused());
            awaitDescriptors(fds, WAIT);
            assertEquals(List.of(), loudLines(log), "faults a client causes are counted, not logged");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void aPostWithoutABodyIsAnsweredAndTheRequestBehindItToo(Cell cell) throws Exception {
        try (HttpServer server = HttpProtocolTest.start(cell)) {
            String pipelined = "POST /echo HTTP/1.1\r\nHost: x\r\n\r\n" // no framing: an empty body (RFC 9112, 6.3)
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
                    + "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            InputStream in = new ByteArrayInputStream(ExternalTools.sendAndReadToEnd(server.address(),
                    ascii(pipelined), WAIT));
            for (int i = 0; i < 2; i++) {
                RawHttp.Response r = RawHttp.read(in);
                assertEquals(200, r.status());
                assertEquals(0, r.body().length);
            }
            assertEquals("Hello, World!", RawHttp.read(in).text());
            try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
                var r = client.send(java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.address().getPort() + "/echo")).timeout(WAIT).POST(BodyPublishers.noBody()).build(),
                        BodyHandlers.ofByteArray());
                assertEquals(200, r.statusCode());
                assertEquals(0, r.body().length);
            }
            if (ExternalTools.find("curl") != null) {
                ExternalTools.Result r = ExternalTools.run(WAIT, "curl", "-sS", "-m", "10", "-o", "/dev/null",
                        "-w", "%{http_code}", "-X", "POST", "-d", "", "http://127.0.0.1:" + server.address().getPort() + "/echo");
                assertEquals("200", r.out(), r.toString());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void clientsThatPipelineButNeverReadHoldLittle(Cell cell) throws Exception {
        try (LogCapture log = LogCapture.start("dev.loop"); HttpServer server = HttpProtocolTest.start(cell)) {
            politeClientIsServed(server);
            long fds = Fds.count();
            long heap = liveHeap();
            List<Socket> peers = new ArrayList<>();
            try {
                // each asks for 64 KiB echoed back 20 times over, in one pipelined batch, and reads nothing
                byte[] body = new byte[64 * 1024];
                byte[] head = ascii("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n");
                for (int i = 0; i < 20; i++) {
                    Socket p = new Socket();
                    p.setReceiveBufferSize(4096);
                    p.connect(server.address());
                    peers.add(p);
                }
                List<Thread> writers = new ArrayList<>();
                for (Socket p : peers) {
                    writers.add(Thread.ofVirtual().start(() -> {
                        try {
                            OutputStream o = p.getOutputStream();
                            for (int k = 0; k < 20; k++) {
                                o.write(head);
                                o.write(body);
                            }
                        } catch (java.io.IOException closedByTheTest) {
                            // blocked until the test closed the socket: the server had stopped reading
                        }
                    }));
                }
                politeClientIsServed(server);
                for (int i = 0; i < 3; i++) {
                    assertHeapWithin(heap, 48 * MiB, "20 clients pipelining echoes and reading none");
                    politeClientIsServed(server);
                }
                closeAll(peers);
                for (Thread w : writers) {
                    assertTrue(w.join(WAIT), "a writer still blocked after its socket closed");
                }
            } finally {
                closeAll(peers);
            }
            awaitDescriptors(fds, WAIT);
            assertHeapWithin(heap, 8 * MiB, "after the clients that did not read left");
            assertEquals(List.of(), loudLines(log));
        }
    }
}
