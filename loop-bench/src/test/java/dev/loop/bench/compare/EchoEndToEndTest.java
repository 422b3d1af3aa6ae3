package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The echo load end to end: a server on our loop in this JVM, the load generator in a process of
 * its own started the way the comparison starts it, one window after another.
 */
class EchoEndToEndTest {

    static ServerLoad.Endpoint at(int port) {
        return new ServerLoad.Endpoint() {
            @Override
            public String host() {
                return "127.0.0.1";
            }

            @Override
            public int port() {
                return port;
            }

            @Override
            public List<Long> pids() {
                return List.of(ProcessHandle.current().pid());
            }
        };
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void oneLoadGeneratorProcessMeasuresWindowsAndBursts(@TempDir Path dir) throws Exception {
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
        try (EchoLoad.Generator g = new EchoLoad.Generator(false, dir.resolve("client.log"))) {
            ServerLoad.Endpoint server = at(port.get(10, TimeUnit.SECONDS));
            List<String> meter = new ArrayList<>();
            ServerLoad.Meter m = new ServerLoad.Meter() {
                @Override
                public void begin() {
                    meter.add("begin");
                }

                @Override
                public void end() {
                    meter.add("end");
                }
            };
            ServerLoad.Window ping = new EchoLoad(g, false, 2, 64, 1).run(server, Duration.ofMillis(100),
                    Duration.ofMillis(200), false, m);
            assertEquals(List.of("begin", "end"), meter);
            assertTrue(ping.operations() > 20, "implausibly slow: " + ping);
            assertEquals(ping.operations() * 64, ping.bytes());
            assertTrue(ping.seconds() >= 0.2, ping.toString());
            assertTrue(ping.p50Micros() > 0 && ping.p99Micros() >= ping.p50Micros(), ping.toString());

            // a burst leaves nothing in flight: every message sent came back and was counted
            ServerLoad.Window burst = new EchoLoad(g, true, 3, 4096, 16).run(server, Duration.ZERO,
                    Duration.ofMillis(100), true, ServerLoad.Meter.NONE);
            assertTrue(burst.operations() > 0, burst.toString());
            assertEquals(burst.operations() * 4096, burst.bytes());
            assertTrue(Double.isNaN(burst.p50Micros()));

            // the same process serves the next window
            ServerLoad.Window again = new EchoLoad(g, false, 1, 64, 1).run(server, Duration.ZERO,
                    Duration.ofMillis(100), false, ServerLoad.Meter.NONE);
            assertTrue(again.operations() > 0, again.toString());
        } finally {
            loop.stop();
            t.join(5000);
            loop.close();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aServerThatIsNotThereIsAnErrorSayingSo(@TempDir Path dir) throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        try (EchoLoad.Generator g = new EchoLoad.Generator(false, dir.resolve("client.log"))) {
            IOException e = assertThrows(IOException.class, () -> new EchoLoad(g, false, 1, 64, 1)
                    .run(at(closedPort), Duration.ZERO, Duration.ofMillis(100), false, ServerLoad.Meter.NONE));
            assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
        }
    }
}
