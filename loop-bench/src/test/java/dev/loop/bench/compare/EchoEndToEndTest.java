package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The echo plumbing end to end: a server on our loop in this JVM, the load generator in a process of
 * its own started the way the comparison starts it, one connection, about half a second.
 */
class EchoEndToEndTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void loadGeneratorProcessMeasuresAnInTestServer(@TempDir Path dir) throws Exception {
        Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"));
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                Server s = Net.listen(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                        c -> c.setHandler(EchoServerMain.ECHO));
                port.complete(s.localAddress().getPort());
                loop.runForever();
            } catch (Throwable e) {
                port.completeExceptionally(e);
            }
        }, "echo-test-loop");
        t.start();
        try {
            CompareOptions o = CompareOptions.parse("--warmup", "200ms", "--duration", "150ms", "--iterations", "2",
                    "--no-pin");
            EchoRunner.Workload w = new EchoRunner.Workload("echo", "echo ping-pong 64 B, 1 conn", false, 1);
            long pid = ProcessHandle.current().pid();
            Row row = EchoRunner.measure(o, "loop select/heap", Row.Side.OURS, w, port.get(10, TimeUnit.SECONDS), pid,
                    dir.resolve("client.log"), null);
            assertTrue(row.measured(), "no samples: " + row.note());
            assertEquals(2, row.samples().size());
            assertTrue(row.median() > 100, "implausibly slow: " + row.samples());
            assertTrue(row.p50Micros() > 0 && row.p99Micros() >= row.p50Micros(), row.toString());
            assertTrue(row.clientCpu() > 0, row.toString());
            assertTrue(row.note() == null || row.note().startsWith("load generator near"), row.note());

            EchoRunner.Workload s = new EchoRunner.Workload("stream", "echo stream 4 KiB x16, 1 conn", true, 1);
            Row stream = EchoRunner.measure(o, "loop select/heap", Row.Side.OURS, s, port.get(), -1,
                    dir.resolve("client.log"), null);
            assertTrue(stream.measured(), "no samples: " + stream.note());
            assertTrue(stream.median() > 1, "MB/s: " + stream.samples());
            assertTrue(Double.isNaN(stream.p50Micros()));
        } finally {
            loop.stop();
            t.join(5000);
            loop.close();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aServerThatIsNotThereIsReportedNotThrown(@TempDir Path dir) throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        CompareOptions o = CompareOptions.parse("--warmup", "100ms", "--duration", "100ms", "--iterations", "1",
                "--no-pin");
        EchoRunner.Workload w = new EchoRunner.Workload("echo", "echo ping-pong 64 B, 1 conn", false, 1);
        Row row = EchoRunner.measure(o, "nobody", Row.Side.PEER, w, closedPort, -1, dir.resolve("client.log"), null);
        assertTrue(!row.measured() && row.note().startsWith("failed: "), row.toString());
    }
}
