package dev.loop.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.io.ServerHost;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example servers run as programs, in a JVM of their own, stop cleanly on SIGTERM and SIGINT:
 * exit status 0, the Unix socket file gone, and a connection that was open sees its end. Also the
 * {@code run} example: a child's output streamed, its status ours, the timeout's 124.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StopOnSignalTest {
    private static final long PATIENCE_S = 20;

    @TempDir
    Path dir;

    @Test
    void unixEchoRemovesItsSocketFileAndExitsWithZeroOnSigterm() throws Exception {
        Path sock = dir.resolve("e.sock");
        Process p = start("unix-echo", "--path", sock.toString(), "--backend", "epoll");
        String banner = firstLine(p);
        assertTrue(banner.startsWith("unix echo on"), banner);
        assertTrue(Files.exists(sock));
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(sock));
            c.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.UTF_8)));
            ByteBuffer back = ByteBuffer.allocate(4);
            while (back.hasRemaining() && c.read(back) >= 0) {
                // the echo arrives: the server is serving this connection when the signal comes
            }
            signal(p, "TERM");
            assertEquals(0, exit(p), "exit status after SIGTERM");
            assertEquals(-1, c.read(ByteBuffer.allocate(1)), "the open connection was closed");
        }
        assertFalse(Files.exists(sock), "the socket file was left behind");
        assertTrue(rest(p).contains("stopping on SIGTERM"));
    }

    @Test
    void echoServerExitsWithZeroOnSigint() throws Exception {
        assumeSigintDeliverable();
        Process p = start("echo-server", "--port", "0", "--backend", "select");
        int port = port(firstLine(p));
        signal(p, "INT");
        assertEquals(0, exit(p), "exit status after SIGINT");
        assertTrue(rest(p).contains("stopping on SIGINT"));
        assertRefused(port);
    }

    @Test
    void httpServerOnTwoLoopsStopsAcceptingAndExitsWithZeroOnSigterm() throws Exception {
        Process p = start("http-server", "--port", "0", "--loops", "2");
        int port = port(firstLine(p));
        signal(p, "TERM");
        assertEquals(0, exit(p), "exit status after SIGTERM");
        assertTrue(rest(p).contains("stopping on SIGTERM"));
        assertRefused(port);
    }

    @Test
    void httpServerClosesAnIdleKeptAliveConnectionAtOnceInsteadOfWaitingForTheDrainDeadline() throws Exception {
        Process p = start("http-server", "--port", "0");
        assertAnIdleConnectionDoesNotHoldTheStop(p, "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n", "Hello");
    }

    @Test
    void respServerClosesAnIdleClientAtOnceInsteadOfWaitingForTheDrainDeadline() throws Exception {
        Process p = start("resp-server", "--port", "0", "--loops", "2");
        assertAnIdleConnectionDoesNotHoldTheStop(p, "PING\r\n", "+PONG\r\n");
    }

    /**
     * Sends {@code request} on a connection, reads until {@code answerEnd}, then sends SIGTERM while
     * the connection is idle: the server must close it and exit well before the drain deadline
     * ({@link ServerHost#DRAIN}), which an idle connection would otherwise hold it for.
     */
    private static void assertAnIdleConnectionDoesNotHoldTheStop(Process p, String request, String answerEnd)
            throws Exception {
        int port = port(firstLine(p));
        try (SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            c.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer answer = ByteBuffer.allocate(4096);
            while (!new String(answer.array(), 0, answer.position(), StandardCharsets.US_ASCII).contains(answerEnd)) {
                assertTrue(c.read(answer) > 0, "the answer arrives");
            }
            long signalled = System.nanoTime();
            signal(p, "TERM");
            assertEquals(-1, c.read(ByteBuffer.allocate(1)), "the idle connection is closed");
            assertEquals(0, exit(p), "exit status after SIGTERM");
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - signalled);
            assertTrue(seconds < ServerHost.DRAIN.toSeconds() - 2, "took " + seconds + " s: the idle connection held the stop");
        }
    }

    @Test
    void respServerOnOneLoopExitsWithZeroOnSigint() throws Exception {
        assumeSigintDeliverable();
        Process p = start("resp-server", "--port", "0");
        int port = port(firstLine(p));
        signal(p, "INT");
        assertEquals(0, exit(p), "exit status after SIGINT");
        assertTrue(rest(p).contains("stopping on SIGINT"));
        assertRefused(port);
    }

    @Test
    void runStreamsTheChildsOutputAndReturnsItsStatus() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"run", "--", "sh", "-c", "echo one; echo two >&2; echo three; exit 7"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(7, code);
        assertEquals("one\nthree\n", out.toString(StandardCharsets.UTF_8));
        assertEquals("two\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void runEndsAChildThatOutlivesItsTimeoutWith124() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        int code = Main.run(new String[] {"run", "--timeout-ms", "300", "--", "sleep", "30"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(124, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("did not exit within 300 ms"), err.toString(StandardCharsets.UTF_8));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "the child ran on past its timeout");
    }

    @Test
    void runSaysWhenTheProgramCannotStart() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"run", "--", "/nonexistent/loop-no-such-program"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(127, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("/nonexistent/loop-no-such-program"));
    }

    // ------------------------------------------------------------------ helpers

    /**
     * A process started with SIGINT ignored (a shell's background job) passes that on to its
     * children, whose JVM then cannot take SIGINT at all: the checks that send it need it deliverable.
     */
    private static void assumeSigintDeliverable() throws IOException {
        Assumptions.assumeFalse(sigintIgnoredHere(), "SIGINT is ignored in this process and so in its children");
    }

    private static boolean sigintIgnoredHere() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << (2 - 1))) != 0; // SIGINT is 2
            }
        }
        return false;
    }

    @Test
    void aServerStartedWithSigintIgnoredSaysSoAndStillStopsOnSigterm() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of("bash", "-c", "trap '' INT; exec \"$@\"", "bash", java,
                "--add-exports", "java.base/jdk.internal.vm=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "echo-server", "--port", "0", "--backend", "select"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        int port = port(firstLine(p, output));
        signal(p, "TERM");
        assertEquals(0, exit(p), "exit status after SIGTERM");
        output.append(rest(p));
        assertTrue(output.toString().contains("SIGINT is ignored by this process"),
                "the start says SIGINT cannot stop it: " + output);
        assertRefused(port);
    }

    private static Process start(String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-exports", "java.base/jdk.internal.vm=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** The first line the program prints that is not a log line: its banner. */
    private static String firstLine(Process p) throws IOException {
        return firstLine(p, new StringBuilder());
    }

    /** {@link #firstLine(Process)}, keeping the log lines before it in {@code before}. */
    private static String firstLine(Process p, StringBuilder before) throws IOException {
        InputStream in = p.getInputStream();
        while (true) {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                sb.append((char) c);
            }
            String line = sb.toString();
            if (c == -1 || line.contains(" on ") && !line.startsWith("INFO") && !line.contains("dev.loop.Loops")) {
                return line;
            }
            before.append(line).append('\n');
        }
    }

    private static int port(String banner) {
        Matcher m = Pattern.compile(":(\\d+)").matcher(banner);
        assertTrue(m.find(), banner);
        return Integer.parseInt(m.group(1));
    }

    private static void signal(Process p, String name) throws Exception {
        Process k = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start();
        assertEquals(0, k.waitFor());
    }

    private static int exit(Process p) throws InterruptedException {
        if (!p.waitFor(PATIENCE_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("still running " + PATIENCE_S + " s after the signal");
        }
        return p.exitValue();
    }

    private static String rest(Process p) throws IOException {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static void assertRefused(int port) {
        try (SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            throw new AssertionError("port " + port + " still accepts after the server stopped");
        } catch (IOException refused) {
            // nothing listens any more
        }
    }
}
