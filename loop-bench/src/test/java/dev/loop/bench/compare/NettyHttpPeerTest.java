package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.epoll.Epoll;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The http workload's Netty peer as the comparison starts it: it listens, answers keep-alive and
 * pipelined requests in order, and goes when its input ends; and the target that compares us
 * with it reads both requests/s and CPU per request from the rows.
 */
class NettyHttpPeerTest {

    @Test
    void theComparisonStartsItBesideOursAndNginx(@TempDir Path dir) throws IOException {
        CompareOptions o = CompareOptions.parse("--backends", "select", "--out", dir.toString());
        List<ServerLoad.Spec> specs = ProtocolWorkloads.httpServers(o, List.of("select"), List.of("heap"), dir);
        ServerLoad.Spec netty = specs.get(1);
        assertEquals("netty http " + (Epoll.isAvailable() ? "epoll" : "nio"), netty.contender());
        assertEquals(Row.Side.PEER, netty.side());
        assertNull(netty.skip());
        assertTrue(netty.command().contains(NettyHttpServerMain.class.getName()), netty.command().toString());
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void answersKeepAliveAndPipelinedRequestsInOrderThenEndsWithItsInput() throws Exception {
        ServerLoad.Spec spec = ProtocolWorkloads.nettyHttp(Epoll.isAvailable());
        Process p = new ProcessBuilder(spec.command()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
            String first = lines.readLine();
            assertNotNull(first, "the server printed nothing");
            assertTrue(first.startsWith("LISTENING "), first);
            int port = Integer.parseInt(first.substring("LISTENING ".length()).trim());
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                s.setSoTimeout(30_000);
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();

                out.write(ascii("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
                out.flush();
                Response hello = Response.read(in);
                assertEquals(200, hello.status, hello.head);
                assertEquals("Hello, World!", hello.body);
                assertEquals("text/plain", hello.header("content-type"));
                assertNull(hello.header("connection"), "HTTP/1.1 keeps the connection open without saying so");

                // the same connection, two requests in one write: answered in order, then closed as asked
                out.write(ascii("GET /json HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
                out.flush();
                Response json = Response.read(in);
                assertEquals(200, json.status, json.head);
                assertEquals("{\"message\":\"Hello, World!\"}", json.body);
                assertEquals("application/json", json.header("content-type"));
                Response last = Response.read(in);
                assertEquals("Hello, World!", last.body);
                assertEquals("close", last.header("connection"));
                assertEquals(-1, in.read(), "the connection closes after Connection: close");
            }
        } finally {
            p.getOutputStream().close();
            boolean ended = p.waitFor(30, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            assertTrue(ended, "the Netty HTTP peer outlived its input");
        }
    }

    @Test
    void theHttpTargetWeighsRequestsPerSecondAndCpuPerRequest() {
        Results r = new Results();
        String w1 = "http plaintext, 1 conn";
        String w2 = "http plaintext pipelined x16, 1 conn";
        r.pairing(w1, "rounds");
        r.pairing(w2, "rounds");
        // faster and cheaper on the first workload; faster but dearer on the second
        r.add(server(w1, "loop epoll/heap", Row.Side.OURS, List.of(110e3, 112e3, 111e3), 8e-6));
        r.add(server(w1, ProtocolWorkloads.NETTY_HTTP + " epoll", Row.Side.PEER, List.of(100e3, 100e3, 100e3), 9e-6));
        r.add(server(w1, "nginx", Row.Side.PEER, List.of(200e3, 200e3, 200e3), 4e-6));
        r.add(server(w2, "loop epoll/heap", Row.Side.OURS, List.of(500e3, 505e3, 510e3), 2.4e-6));
        r.add(server(w2, ProtocolWorkloads.NETTY_HTTP + " epoll", Row.Side.PEER, List.of(450e3, 450e3, 450e3), 2e-6));
        Targets.Outcome t = TargetsTest.find(Targets.evaluate(r), "HTTP plaintext: ours >= Netty's");
        assertEquals(Targets.Verdict.PARTLY, t.verdict(), t.detail());
        // judged against Netty's row, not the faster nginx
        assertTrue(t.detail().startsWith("3 met, 1 missed. " + w1 + ": epoll/heap 1.11x"), t.detail());
        assertTrue(t.detail().contains("CPU 0.89x vs netty http epoll"), t.detail());
        assertTrue(t.detail().contains(w2 + ": epoll/heap 1.12x"), t.detail());
        assertTrue(t.detail().contains("CPU 1.20x vs netty http epoll"), t.detail());

        Results noPeer = new Results();
        noPeer.add(server(w1, "loop epoll/heap", Row.Side.OURS, List.of(110e3), 8e-6));
        noPeer.add(Row.unavailable("http", w1, "netty http epoll", Row.Side.PEER, "requests/s", "failed: x"));
        assertEquals(Targets.Verdict.NOT_MEASURED,
                TargetsTest.find(Targets.evaluate(noPeer), "HTTP plaintext").verdict());
    }

    private static Row server(String workload, String contender, Row.Side side, List<Double> samples, double cpuPerOp) {
        return new Row("http", workload, contender, side, "requests/s", samples, 50, 90, 0.5, 0.9, null, cpuPerOp,
                null);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** One HTTP/1.1 response with a Content-Length body, read off a raw socket. */
    private record Response(int status, String head, String body) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }

        static Response read(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("connection closed inside a response head: " + head);
                }
                head.write(b);
                matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            String h = head.toString(StandardCharsets.US_ASCII);
            Response r = new Response(Integer.parseInt(h.substring(9, 12)), h, "");
            String length = r.header("content-length");
            if (length == null) {
                throw new IOException("no Content-Length in " + h);
            }
            byte[] body = in.readNBytes(Integer.parseInt(length));
            return new Response(r.status, h, new String(body, StandardCharsets.UTF_8));
        }
    }
}
