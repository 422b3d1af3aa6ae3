package dev.loop.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Server;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each example, end to end, on 127.0.0.1. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ExamplesTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static String run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void echoServerEchoesBytes() throws Exception {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"))) {
            Server server = EchoServer.start(loop, ANY_PORT, false);
            CompletableFuture<String> client = CompletableFuture.supplyAsync(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().getPort())) {
                    s.getOutputStream().write("hello, loop".getBytes(StandardCharsets.UTF_8));
                    s.shutdownOutput();
                    return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertEquals("hello, loop", loop.runUntilComplete(LoopFuture.from(client, loop)));
        }
    }

    @Test
    void echoServerWithPrefixAnswersEachLine() throws Exception {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"))) {
            Server server = EchoServer.start(loop, ANY_PORT, true);
            CompletableFuture<List<String>> client = CompletableFuture.supplyAsync(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().getPort())) {
                    OutputStream o = s.getOutputStream();
                    BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                    o.write("one\n".getBytes(StandardCharsets.UTF_8));
                    String first = in.readLine();
                    o.write("two\r\n".getBytes(StandardCharsets.UTF_8));
                    return List.of(first, in.readLine());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertEquals(List.of("Got: one", "Got: two"), loop.runUntilComplete(LoopFuture.from(client, loop)));
        }
    }

    @Test
    void echoServerWithPrefixSaysGoodbyeToAClientThatSendsNoLine() throws Exception {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"))) {
            Server server = EchoServer.start(loop, ANY_PORT, true, java.time.Duration.ofMillis(100));
            CompletableFuture<List<String>> client = CompletableFuture.supplyAsync(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().getPort())) {
                    OutputStream o = s.getOutputStream();
                    BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                    o.write("one\n".getBytes(StandardCharsets.UTF_8));
                    String first = in.readLine();
                    return List.of(first, in.readLine(), String.valueOf(in.readLine())); // then silence
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertEquals(List.of("Got: one", "Bye: no line for a while", "null"),
                    loop.runUntilComplete(LoopFuture.from(client, loop)));
        }
    }

    @Test
    void httpGetPrintsTheStatusLineAndBodySize() throws Exception {
        HttpServer http = HttpServer.create(ANY_PORT, 0);
        byte[] body = new byte[12_345];
        http.createContext("/data", exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        });
        http.start();
        try {
            String out = run("http-get", "http://127.0.0.1:" + http.getAddress().getPort() + "/data");
            assertTrue(out.matches("(?s)HTTP/1\\.[01] 200 .*"), out);
            assertTrue(out.contains("body: 12345 bytes"), out);
        } finally {
            http.stop(0);
        }
    }

    @Test
    void everyExampleMainRunsIsDocumentedInTheReadme() throws Exception {
        String main = java.nio.file.Files.readString(java.nio.file.Path.of("src/main/java/dev/loop/examples/Main.java"));
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("case \"([a-z-]+)\" ->").matcher(main);
        int cases = 0;
        while (m.find()) {
            cases++;
            assertTrue(readme.contains("| `" + m.group(1)), "loop-examples/README.md has no row for " + m.group(1));
        }
        assertTrue(cases >= 7, "found only " + cases + " examples in Main.java");
    }

    @Test
    void serversRefuseUnknownOrMalformedArgumentsNamingThem() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(2, Main.run(new String[] {"http-server", "--port", "eighty"}, o, e));
        assertEquals(2, Main.run(new String[] {"resp-server", "--loops", "0"}, o, e));
        assertEquals(2, Main.run(new String[] {"resp-server", "--prot", "1"}, o, e));
        assertEquals(2, Main.run(new String[] {"http-server", "--file-reads", "mmap"}, o, e));
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals("http-server: --port takes a whole number, not 'eighty'", lines.get(0));
        assertEquals("resp-server: --loops must be in [1, 1024]: 0", lines.get(1));
        assertTrue(lines.get(2).startsWith("resp-server: unknown argument '--prot'"), lines.get(2));
        assertEquals("http-server: --file-reads is 'loop' or 'offload', not 'mmap'", lines.get(3));
    }

    @Test
    void countdownCountsToLiftoff() throws Exception {
        assertEquals(List.of("3", "2", "1", "liftoff"), run("countdown", "3", "--interval-ms", "1").lines().toList());
    }

    @Test
    void producerConsumerMovesEveryItemInOrder() throws Exception {
        List<String> lines = run("producer-consumer", "6", "--interval-ms", "1").lines().toList();
        List<String> consumed = lines.stream().filter(l -> l.startsWith("consumed ") && !l.contains("all")).toList();
        assertEquals(List.of("consumed 1", "consumed 2", "consumed 3", "consumed 4", "consumed 5", "consumed 6"), consumed);
        assertEquals("consumed all 6", lines.get(lines.size() - 1));
    }
}
