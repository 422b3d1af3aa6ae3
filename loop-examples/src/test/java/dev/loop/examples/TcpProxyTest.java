package dev.loop.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ManualClock;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.examples.http.HttpServer;
import dev.loop.testkit.StreamSuite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code tcp-proxy}: curl through it to the example HTTP server (upstream named {@code localhost},
 * so it is looked up and connected to with Happy Eyeballs), a reader slower than the upstream
 * (the proxy pauses instead of buffering), a half-close passing through, and a graceful stop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpProxyTest {
    private static final InetSocketAddress ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static Loop open(String backend) {
        return Loops.open(LoopOptions.defaults().withBackend(backend));
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll", "io_uring"})
    void curlReachesTheHttpServerThroughTheProxy(String backend) throws Exception {
        ExternalTools.assumeInstalled("curl", "curl");
        try (HttpServer http = HttpServer.start(HttpServer.Config.defaults().withAddress(ANY).withBackend(backend));
             Loop loop = open(backend)) {
            TcpProxy proxy = TcpProxy.start(loop, ANY, "localhost", http.address().getPort());
            String url = "http://127.0.0.1:" + proxy.address().getPort() + "/plaintext";
            CompletableFuture<ExternalTools.Result> curl = CompletableFuture.supplyAsync(() -> {
                try { // two requests on one kept-alive connection
                    return ExternalTools.run(Duration.ofSeconds(20), "curl", "-sS", url, url);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            ExternalTools.Result r = loop.runUntilComplete(LoopFuture.from(curl, loop));
            assertEquals(0, r.exit(), r.toString());
            assertEquals("Hello, World!Hello, World!", r.out());
            assertEquals(1, http.connectionsAccepted(), "curl kept its connection, and so did the proxy");
            assertEquals(0, proxy.upstreamFailures());
            loop.runUntilComplete(proxy.shutdown(Duration.ofSeconds(5)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll", "io_uring"})
    void aSlowReaderPausesTheUpstreamInsteadOfFillingMemory(String backend) throws Exception {
        byte[] data = new byte[16 << 20];
        new Random(25).nextBytes(data);
        try (Loop loop = open(backend)) {
            Server upstream = Net.listen(loop, ANY, c -> {
                c.write(data); // the upstream's own queue holds it: the proxy reads as fast as the client takes
                c.shutdownOutput();
            });
            TcpProxy proxy = TcpProxy.start(loop, ANY, "localhost", upstream.localAddress().getPort());
            CompletableFuture<Void> paused = new CompletableFuture<>();
            watch(loop, proxy, paused);
            CompletableFuture<byte[]> client = CompletableFuture.supplyAsync(() -> {
                try (Socket s = new Socket()) {
                    s.setReceiveBufferSize(32 * 1024);
                    s.connect(proxy.address(), 5000);
                    s.setSoTimeout(20_000);
                    paused.get(20, TimeUnit.SECONDS); // reads nothing until the proxy had to pause
                    return s.getInputStream().readAllBytes();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            byte[] got = loop.runUntilComplete(LoopFuture.from(client, loop));
            assertArrayEquals(data, got, "every byte, in order, then the upstream's end of stream");
            long bound = ConnectionOptions.DEFAULT_HIGH_WATERMARK + ConnectionOptions.DEFAULT_READ_BUFFER_SIZE;
            assertTrue(proxy.maxQueued() <= bound, "the proxy queued " + proxy.maxQueued()
                    + " bytes for the slow client; at most a high watermark and one read (" + bound + ") expected");
        }
    }

    /** Completes {@code paused} once the proxy paused reading (checked on the loop every millisecond). */
    private static void watch(Loop loop, TcpProxy proxy, CompletableFuture<Void> paused) {
        loop.callLater(Duration.ofMillis(1), () -> {
            if (proxy.pauses() > 0) {
                paused.complete(null);
            } else {
                watch(loop, proxy, paused);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll", "io_uring"})
    void aHalfCloseGoesThroughAndTheOtherSideStillAnswers(String backend) throws Exception {
        try (Loop loop = open(backend)) {
            Server upstream = Net.listen(loop, ANY, c -> StreamSuite.readAll(c).onDone(f -> {
                c.write(("answer to " + new String(f.result(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
                c.close();
            }));
            TcpProxy proxy = TcpProxy.start(loop, ANY, "localhost", upstream.localAddress().getPort());
            Connection client = loop.runUntilComplete(Net.connect(loop, proxy.address()));
            client.write("question".getBytes(StandardCharsets.UTF_8));
            client.shutdownOutput();
            byte[] answer = loop.runUntilComplete(StreamSuite.readAll(client));
            assertEquals("answer to question", new String(answer, StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"select", "epoll", "io_uring"})
    void aGracefulStopClosesWhatIsStillOpenAtTheDeadline(String backend) throws Exception {
        ManualClock clock = ManualClock.create();
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend).withClock(clock))) {
            Server upstream = Net.listen(loop, ANY, c -> c.setHandler((conn, data) -> conn.write(data)));
            TcpProxy proxy = TcpProxy.start(loop, ANY, "127.0.0.1", upstream.localAddress().getPort());
            Connection client = loop.runUntilComplete(Net.connect(loop, proxy.address()));
            client.write("ping".getBytes(StandardCharsets.UTF_8));
            assertEquals("ping", StandardCharsets.UTF_8.decode(loop.runUntilComplete(client.readExactly(4))).toString());
            LoopFuture<Void> stopped = proxy.shutdown(Duration.ofSeconds(3));
            clock.advance(Duration.ofMillis(2999));
            spin(loop);
            assertTrue(client.isOpen() && !stopped.isDone(), "an open connection has until the deadline");
            clock.advance(Duration.ofMillis(1));
            loop.runUntilComplete(stopped);
            assertEquals(-1, loop.runUntilComplete(client.read(ByteBuffer.allocate(8))), "the client reads the end of stream");
        }
    }

    /**
     * The command as a user runs it, in a JVM of its own: SIGTERM (what {@code kill} and
     * {@code Process.destroy} send) stops accepting, lets the open connection go on until the
     * drain deadline, then closes it, and the process exits after printing its summary.
     */
    @org.junit.jupiter.api.Test
    void sigtermDrainsTheOpenConnectionThenExits() throws Exception {
        try (java.net.ServerSocket upstream = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> { // a blocking echo for one client
                try (Socket s = upstream.accept()) {
                    s.getInputStream().transferTo(s.getOutputStream());
                } catch (IOException ignored) {
                    // the proxy went away
                }
            });
            String javaCmd = ProcessHandle.current().info().command().orElseThrow();
            String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            Process p = new ProcessBuilder(javaCmd, "-cp", cp, Main.class.getName(), "tcp-proxy", "--listen", "0",
                    "--to", "127.0.0.1:" + upstream.getLocalPort(), "--backend", "select", "--drain-ms", "3000")
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                java.io.BufferedReader out = p.inputReader();
                String banner = out.readLine();
                assertTrue(banner != null && banner.startsWith("tcp-proxy on "), "banner: " + banner);
                int port = Integer.parseInt(banner.replaceAll("^tcp-proxy on [^:]*:(\\d+) .*$", "$1"));
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    client.setSoTimeout(20_000);
                    client.getOutputStream().write("ping".getBytes(StandardCharsets.UTF_8));
                    assertEquals("ping", new String(client.getInputStream().readNBytes(4), StandardCharsets.UTF_8));
                    p.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its output)
                    // stop accepting comes first; the open connection still works until the deadline
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (accepts(port) && System.nanoTime() < end) {
                        Thread.sleep(10);
                    }
                    assertTrue(!accepts(port), "still accepting after SIGTERM");
                    client.getOutputStream().write("pong".getBytes(StandardCharsets.UTF_8));
                    assertEquals("pong", new String(client.getInputStream().readNBytes(4), StandardCharsets.UTF_8),
                            "the open connection is served while it drains");
                    assertEquals(-1, client.getInputStream().read(), "closed at the drain deadline");
                }
                assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the proxy exits");
                String rest = out.lines().collect(java.util.stream.Collectors.joining("\n"));
                assertTrue(rest.matches("(?s).*tcp-proxy stopped: \\d+ connections, 0 upstream connects failed.*"), rest);
            } finally {
                p.destroyForcibly();
            }
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    private static void spin(Loop loop) {
        for (int i = 0; i < 3; i++) {
            loop.stop();
            loop.runForever();
        }
    }
}
