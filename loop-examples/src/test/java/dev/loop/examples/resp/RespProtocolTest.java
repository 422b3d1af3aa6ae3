package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.examples.ExternalTools;
import dev.loop.testkit.Cell;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The RESP server over raw JDK sockets, on every backend with sockets and on one loop as well as
 * two (where a client of the second loop has its commands run on the first).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RespProtocolTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Backends with sockets, each on one loop and on two. */
    static Stream<Object[]> servers() {
        return dev.loop.testkit.Matrix.groups().flatMap(c -> Stream.of(new Object[] {c, 1}, new Object[] {c, 2}));
    }

    static RespServer start(Cell cell, int loops, RespServer.Config c) throws IOException {
        return RespServer.start(c.withAddress(ANY_PORT).withBackend(cell.backend()).withLoops(loops));
    }

    static RespServer start(Cell cell, int loops) throws IOException {
        return start(cell, loops, RespServer.Config.defaults());
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Reads one reply, whole, as its bytes on the wire. */
    static String readReply(InputStream in) throws IOException {
        String line = line(in);
        if (line == null) {
            return null;
        }
        StringBuilder b = new StringBuilder(line).append("\r\n");
        switch (line.charAt(0)) {
            case '$' -> {
                int n = Integer.parseInt(line.substring(1));
                if (n >= 0) {
                    b.append(new String(ExternalTools.readExactly(in, n + 2), StandardCharsets.ISO_8859_1));
                }
            }
            case '*' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) {
                    b.append(readReply(in));
                }
            }
            default -> { }
        }
        return b.toString();
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /** Every reply to {@code request} until the server closes. */
    static List<String> repliesUntilClosed(RespServer server, String request) throws IOException {
        InputStream in = new java.io.ByteArrayInputStream(ExternalTools.sendAndReadToEnd(server.address(), ascii(request), WAIT));
        List<String> replies = new ArrayList<>();
        for (String r = readReply(in); r != null; r = readReply(in)) {
            replies.add(r);
        }
        return replies;
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void protocolErrorsAreRepliedToAfterTheCommandsBeforeThemThenTheConnectionCloses(Cell cell, int loops) throws Exception {
        try (RespServer server = start(cell, loops, RespServer.Config.defaults().withLimits(8, 1000, 100_000))) {
            assertEquals(List.of("+PONG\r\n", "-ERR Protocol error: invalid multibulk length\r\n"),
                    repliesUntilClosed(server, "PING\r\n*abc\r\n*1\r\n$4\r\nPING\r\n"));
            assertEquals(List.of("-ERR Protocol error: expected '$', got 'P'\r\n"),
                    repliesUntilClosed(server, "*1\r\nPING\r\n"));
            assertEquals(List.of("-ERR Protocol error: invalid bulk length\r\n"),
                    repliesUntilClosed(server, "*2\r\n$3\r\nGET\r\n$1001\r\n"));
            assertEquals(List.of("-ERR Protocol error: invalid multibulk length\r\n"),
                    repliesUntilClosed(server, "*9\r\n"));
            assertEquals(List.of("+OK\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"),
                    repliesUntilClosed(server, "SET 'a b' c\r\nGET \"a b\r\n"));
            assertEquals(List.of("-ERR Protocol error: too big inline request\r\n"),
                    repliesUntilClosed(server, "x".repeat(200_000)));
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void quitRepliesOkClosesAndRunsNothingAfterIt(Cell cell, int loops) throws Exception {
        try (RespServer server = start(cell, loops)) {
            assertEquals(List.of("+OK\r\n", "+OK\r\n"), repliesUntilClosed(server, "SET a 1\r\nQUIT\r\nSET b 2\r\n"));
            assertEquals(List.of("$1\r\n1\r\n", "$-1\r\n", "+OK\r\n"), repliesUntilClosed(server, "GET a\r\nGET b\r\nQUIT\r\n"));
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void inlineAndMultibulkSentAByteAtATimeAreAnsweredInOrder(Cell cell, int loops) throws Exception {
        try (RespServer server = start(cell, loops); Socket s = ExternalTools.connect(server.address(), WAIT)) {
            OutputStream o = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream());
            String request = "SET \"a key\" 'x y'\r\n*0\r\n\r\n*4\r\n$4\r\nMSET\r\n$1\r\nb\r\n$2\r\n\r\n\r\n$1\r\nc\r\n"
                    + "*4\r\n$4\r\nMGET\r\n$5\r\na key\r\n$1\r\nb\r\n$1\r\nc\r\n" + "INCR n\nINCR n\nEXISTS n b c\n";
            for (byte b : ascii(request)) {
                o.write(b);
                o.flush();
            }
            List<String> replies = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                replies.add(readReply(in));
            }
            assertEquals(List.of("+OK\r\n", "-ERR wrong number of arguments for 'mset' command\r\n",
                    "*3\r\n$3\r\nx y\r\n$-1\r\n$-1\r\n", ":1\r\n", ":2\r\n", ":1\r\n"), replies);
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void largeValuesAndAClientThatPipelinesWithoutReading(Cell cell, int loops) throws Exception {
        try (RespServer server = start(cell, loops); Socket s = ExternalTools.connect(server.address(), WAIT)) {
            OutputStream o = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream());
            byte[] big = new byte[3_000_000];
            new java.util.Random(5).nextBytes(big);
            o.write(ascii("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + big.length + "\r\n"));
            o.write(big);
            o.write(ascii("\r\n*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"));
            o.flush();
            assertEquals("+OK\r\n", readReply(in));
            assertArrayEquals(ascii("$" + big.length), ascii(line(in)));
            assertArrayEquals(big, ExternalTools.readExactly(in, big.length));
            assertEquals("", line(in));

            int n = 30_000; // replies of ~3 MB: far past the connection's high watermark
            o.write(ascii("SET v " + "x".repeat(90) + "\r\n"));
            assertEquals("+OK\r\n", readReply(in));
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    byte[] get = ascii("GET v\r\n".repeat(1000));
                    for (int i = 0; i < n / 1000; i++) {
                        o.write(get);
                    }
                    o.flush();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(200); // lets replies pile up before reading; the outcome does not depend on it
            String expected = "$90\r\n" + "x".repeat(90) + "\r\n";
            for (int i = 0; i < n; i++) {
                assertEquals(expected, readReply(in), "reply " + i);
            }
            writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
