package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.examples.http.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** wrk as the HTTP load: its command line, its script, its report, and one real run. */
class WrkLoadTest {
    static final String REPORT = "Running 1s test @ http://127.0.0.1:8080/plaintext\n"
            + "WRK requests=12345 duration_us=1002500 bytes=1600000 connect=0 read=0 write=0 status=0 timeout=3"
            + " p50_us=250 p99_us=1900 cpu_s=0.812000\n";

    @Test
    void theScriptPipelinesOnlyWhenAskedAndAlwaysReports() {
        String plain = WrkLoad.script(1);
        assertFalse(plain.contains("request = function"), plain); // wrk's static request: its fast path
        assertTrue(plain.contains("done = function"), plain);
        String piped = WrkLoad.script(16);
        assertTrue(piped.contains("for i = 1, 16 do") && piped.contains("request = function() return req end"), piped);
    }

    @Test
    void windowsAreWholeSecondsOfAtLeastOne() {
        assertEquals(1, WrkLoad.seconds(Duration.ofMillis(100)));
        assertEquals(1, WrkLoad.seconds(Duration.ofSeconds(1)));
        assertEquals(2, WrkLoad.seconds(Duration.ofMillis(1001)));
    }

    @Test
    void readsTheExactFiguresFromTheReportLine(@TempDir Path dir) throws IOException {
        WrkLoad load = new WrkLoad(false, dir.resolve("wrk.log"), dir.resolve("s.lua"), "/plaintext", 100, 16);
        ServerLoad.Window w = load.parse(REPORT, 1.5);
        assertEquals(12345, w.operations());
        assertEquals(1.0025, w.seconds(), 1e-9); // wrk's own duration, not the wall clock's
        assertEquals(0.812, w.clientCpu(), 1e-9);
        assertEquals(250, w.p50Micros());
        assertEquals(1900, w.p99Micros());
        List<String> cmd = load.command(CommandLoadTest.SERVER, Duration.ofMillis(400));
        assertEquals(List.of("wrk", "-t1", "-c100", "-d1s", "--timeout", "10s", "-s", dir.resolve("s.lua").toString(),
                "http://127.0.0.1:8080/plaintext"), cmd);
    }

    @Test
    void aPercentileBelowTheMedianIsNotShown(@TempDir Path dir) throws IOException {
        WrkLoad load = new WrkLoad(false, dir.resolve("wrk.log"), dir.resolve("s.lua"), "/plaintext", 1, 16);
        ServerLoad.Window w = load.parse(REPORT.replace("p99_us=1900", "p99_us=0"), 1);
        assertEquals(250, w.p50Micros());
        assertTrue(Double.isNaN(w.p99Micros()), "p99 " + w.p99Micros());
    }

    @Test
    void errorResponsesOrBrokenConnectionsFailTheWindow(@TempDir Path dir) throws IOException {
        WrkLoad load = new WrkLoad(false, dir.resolve("wrk.log"), dir.resolve("s.lua"), "/plaintext", 1, 1);
        IOException status = assertThrows(IOException.class, () -> load.parse(REPORT.replace("status=0", "status=7"), 1));
        assertTrue(status.getMessage().contains("7 responses that were not 2xx/3xx"), status.getMessage());
        IOException read = assertThrows(IOException.class, () -> load.parse(REPORT.replace("read=0", "read=2"), 1));
        assertTrue(read.getMessage().contains("2 connect/read/write errors"), read.getMessage());
        IOException none = assertThrows(IOException.class, () -> load.parse("Running 1s test\n", 1));
        assertTrue(none.getMessage().contains("no report line"), none.getMessage());
    }

    /** The script and the report against the real wrk and our server: pipelined answers counted. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void realWrkAgainstHttpServer(@TempDir Path dir) throws Exception {
        assumeTrue(ProtocolWorkloads.find("wrk") != null, "wrk not installed (CI installs it: .ci/run)");
        try (HttpServer server = HttpServer.start(HttpServer.Config.defaults()
                .withAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))) {
            ServerLoad.Endpoint at = endpoint(server.address().getPort());
            WrkLoad load = new WrkLoad(false, dir.resolve("wrk.log"), dir.resolve("p.lua"), "/plaintext", 2, 16);
            ServerLoad.Window w = load.run(at, Duration.ofSeconds(5), Duration.ofSeconds(1), false,
                    ServerLoad.Meter.NONE);
            assertTrue(w.operations() >= 32, "requests " + w.operations()); // two connections' batches at least
            assertTrue(w.seconds() > 0.5 && w.seconds() < 5, "seconds " + w.seconds());
            assertTrue(w.bytes() > w.operations() * "Hello, World!".length(), "bytes " + w.bytes());
        }
    }

    static ServerLoad.Endpoint endpoint(int port) {
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
}
