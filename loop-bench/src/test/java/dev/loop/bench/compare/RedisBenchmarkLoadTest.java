package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.examples.resp.RespServer;
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

/** redis-benchmark as the Redis-protocol load: its report, its sizing, and one real run. */
class RedisBenchmarkLoadTest {
    static final String CSV = "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
            + "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
            + "\"SET\",\"80000.00\",\"0.320\",\"0.100\",\"0.303\",\"0.500\",\"0.711\",\"2.100\"\n";

    @Test
    void readsRateAndLatencyFromTheCsvReport() throws IOException {
        ServerLoad.Window w = RedisBenchmarkLoad.parseReport(CSV, "set", 40_000);
        assertEquals(40_000, w.operations());
        assertEquals(0.5, w.seconds(), 1e-9); // the count over the rate it measured
        assertEquals(303, w.p50Micros(), 1e-6);
        assertEquals(711, w.p99Micros(), 1e-6);
        IOException other = assertThrows(IOException.class, () -> RedisBenchmarkLoad.parseReport(CSV, "get", 1));
        assertTrue(other.getMessage().contains("no CSV line for GET"), other.getMessage());
    }

    @Test
    void msetsLineNamesItsKeyCountAndIsFoundByTheTestName() throws IOException {
        String csv = CSV.replace("\"SET\",\"80000.00\"", "\"MSET (10 keys)\",\"20000.00\"");
        assertEquals(1.0, RedisBenchmarkLoad.parseReport(csv, "mset", 20_000).seconds(), 1e-9);
        assertThrows(IOException.class, () -> RedisBenchmarkLoad.parseReport(csv, "set", 1), "SET is not MSET");
    }

    @Test
    void theFullPresetRunsRedisBenchmarksWholeDefaultSuiteWithAndWithoutPipelining(@TempDir Path dir) {
        List<String> names = ProtocolWorkloads.redis(CompareOptions.parse("--full", "--workloads", "redis"), false, dir)
                .stream().map(ServerLoad.Workload::name).toList();
        assertEquals(24, names.size(), names.toString());
        for (String t : List.of("PING", "SET", "GET", "INCR", "LPUSH", "RPUSH", "LPOP", "RPOP", "SADD", "HSET", "SPOP",
                "MSET")) {
            assertTrue(names.contains("redis " + t + ", 50 clients"), t + " in " + names);
            assertTrue(names.contains("redis " + t + " -P 16, 50 clients"), t + " -P 16 in " + names);
        }
        assertEquals(6, ProtocolWorkloads.redis(CompareOptions.parse("--workloads", "redis"), false, dir).size(),
                "the quick preset keeps PING, SET and GET");
    }

    @Test
    void runsAreSizedToTheWindowAtTheLastRateSeen(@TempDir Path dir) throws IOException {
        RedisBenchmarkLoad load = new RedisBenchmarkLoad(false, dir.resolve("rb.log"), "set", 50, 16);
        assertEquals(RedisBenchmarkLoad.PROBE, load.requests(7000, Duration.ofMillis(500))); // not seen: a probe
        List<String> cmd = load.command(WrkLoadTest.endpoint(7000), Duration.ofMillis(500));
        assertEquals(List.of("redis-benchmark", "-h", "127.0.0.1", "-p", "7000", "-c", "50", "-P", "16", "-n",
                Integer.toString(RedisBenchmarkLoad.PROBE), "-t", "set", "--csv"), cmd);
        load.parse(CSV, 1); // 80,000 requests/s seen on port 7000
        assertEquals(40_000, load.requests(7000, Duration.ofMillis(500)));
        assertEquals(RedisBenchmarkLoad.PROBE, load.requests(7001, Duration.ofMillis(500))); // another server
        assertEquals(50 * 16 * 2, load.requests(7000, Duration.ofNanos(1))); // every client's pipeline, twice
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void realRedisBenchmarkAgainstRespServer(@TempDir Path dir) throws Exception {
        assumeTrue(ProtocolWorkloads.find("redis-benchmark") != null,
                "redis-benchmark not installed (CI installs redis-tools: .ci/run)");
        try (RespServer server = RespServer.start(RespServer.Config.defaults()
                .withAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))) {
            RedisBenchmarkLoad load = new RedisBenchmarkLoad(false, dir.resolve("rb.log"), "get", 10, 4);
            ServerLoad.Window w = load.run(WrkLoadTest.endpoint(server.address().getPort()), Duration.ZERO,
                    Duration.ofMillis(200), true, ServerLoad.Meter.NONE);
            assertTrue(w.operations() >= 10 * 4 * 2, "requests " + w.operations());
            assertTrue(w.seconds() > 0 && w.p50Micros() > 0, w.toString());
        }
    }
}
