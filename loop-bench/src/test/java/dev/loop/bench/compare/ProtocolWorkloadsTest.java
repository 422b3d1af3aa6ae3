package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The peers as the comparison starts them: nginx and redis-server answer, and go when told. */
class ProtocolWorkloadsTest {

    @Test
    void aMissingProgramIsNamedWithItsPackage() {
        assertEquals("n/a (nginx not installed: apt-get install nginx-light)",
                ProtocolWorkloads.missing(null, "nginx", "nginx-light"));
        assertNull(ProtocolWorkloads.missing(Path.of("/usr/sbin/nginx"), "nginx", "nginx-light"));
        assertNull(ProtocolWorkloads.find("no-such-program-anywhere"));
    }

    @Test
    void aFamilyWithoutItsLoadGeneratorLeavesARowPerContenderSayingWhy() {
        Results results = new Results();
        List<ServerLoad.Spec> specs = List.of(
                new ServerLoad.Spec("loop epoll/heap", Row.Side.OURS, List.of("x"), 0, null),
                new ServerLoad.Spec("nginx", Row.Side.PEER, List.of(), 0, "n/a (nginx not installed: ...)"));
        List<ServerLoad.Workload> workloads = List.of(new ServerLoad.Workload("http", "http plaintext, 1 conn",
                "requests/s", "request", false, null));
        ProtocolWorkloads.skipAll(specs, workloads, "n/a (wrk not installed: apt-get install wrk)", results);
        List<Row> rows = results.rowsOf("http plaintext, 1 conn");
        assertEquals(2, rows.size());
        assertEquals("n/a (wrk not installed: apt-get install wrk)", rows.get(0).note());
        assertEquals("n/a (nginx not installed: ...)", rows.get(1).note()); // its own reason first
    }

    @Test
    void nginxServesTheSameBodyOnLoopbackWithOneWorker(@TempDir Path dir) {
        String conf = ProtocolWorkloads.nginxConfig(dir, 18080);
        assertTrue(conf.contains("worker_processes 1;"), conf);
        assertTrue(conf.contains("listen 127.0.0.1:18080"), conf);
        assertTrue(conf.contains("return 200 \"Hello, World!\";"), conf);
        assertTrue(conf.contains("pid " + dir.toAbsolutePath() + "/nginx.pid;"), conf);
    }

    @Test
    void nginxIsGivenAbsolutePathsUnderARelativeOutputDirectory() throws Exception {
        assumeTrue(ProtocolWorkloads.find("nginx") != null, "nginx not installed (CI installs nginx-light: .ci/run)");
        Path relative = Path.of("target", "nginx-paths-test");
        CompareOptions o = CompareOptions.parse("--backends", "select", "--out", relative.toString());
        List<ServerLoad.Spec> specs = ProtocolWorkloads.httpServers(o, List.of(), List.of(), relative);
        List<String> cmd = specs.get(specs.size() - 1).command();
        for (String flag : List.of("-p", "-c", "-e")) {
            String path = cmd.get(cmd.lastIndexOf(flag) + 1); // the last: the wrapper is "sh -c"
            assertTrue(Path.of(path).isAbsolute(), flag + " " + path + " in " + cmd);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void realNginxAnswersPlaintextAndEndsWithItsInput(@TempDir Path dir) throws Exception {
        assumeTrue(ProtocolWorkloads.find("nginx") != null, "nginx not installed (CI installs nginx-light: .ci/run)");
        CompareOptions o = CompareOptions.parse("--backends", "select", "--out", dir.toString());
        List<ServerLoad.Spec> specs = ProtocolWorkloads.httpServers(o, List.of(), List.of(), dir);
        ServerLoad.Spec nginx = specs.get(specs.size() - 1);
        assertEquals("nginx", nginx.contender());
        assertNull(nginx.skip());
        String reply = serveOnce(nginx, dir, "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(reply.startsWith("HTTP/1.1 200") && reply.endsWith("\r\n\r\nHello, World!"), reply);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void realRedisServerAnswersAndEndsWithItsInput(@TempDir Path dir) throws Exception {
        assumeTrue(ProtocolWorkloads.find("redis-server") != null,
                "redis-server not installed (CI installs it: .ci/run)");
        CompareOptions o = CompareOptions.parse("--out", dir.toString());
        List<ServerLoad.Spec> specs = ProtocolWorkloads.redisServers(o, List.of(), List.of(), dir);
        ServerLoad.Spec redis = specs.get(specs.size() - 1);
        assertEquals("redis-server", redis.contender());
        String reply = serveOnce(redis, dir, "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nQUIT\r\n");
        assertEquals("+PONG\r\n+OK\r\n", reply);
    }

    /**
     * Starts the spec's command, sends {@code request} once it listens, reads the reply until the
     * server closes, then closes the command's input and checks that it, and everything it
     * started, is gone.
     */
    private static String serveOnce(ServerLoad.Spec spec, Path dir, String request) throws Exception {
        Process p = new ProcessBuilder(spec.command()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        List<ProcessHandle> started = new ArrayList<>();
        try {
            Socket s = connect(spec.port(), p, dir);
            p.descendants().forEach(started::add);
            try (s) {
                OutputStream out = s.getOutputStream();
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                s.setSoTimeout(30_000);
                InputStream in = s.getInputStream();
                return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            }
        } finally {
            p.getOutputStream().close();
            boolean ended = p.waitFor(30, TimeUnit.SECONDS);
            if (!ended) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            assertTrue(ended, spec.contender() + " outlived its input");
            for (ProcessHandle h : started) {
                assertTrue(h.onExit().get(30, TimeUnit.SECONDS) != null && !h.isAlive(), h + " still alive");
            }
        }
    }

    private static Socket connect(int port, Process p, Path dir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        IOException last = null;
        while (System.nanoTime() < deadline && p.isAlive()) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return s;
            } catch (IOException e) {
                s.close();
                last = e;
                Thread.sleep(50);
            }
        }
        throw new IOException("nothing listened on " + port + ": " + Files.readString(dir.resolve("server.log")), last);
    }
}
