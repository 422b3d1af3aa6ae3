package dev.loop.examples.resp;

import static dev.loop.examples.ExternalTools.assumeInstalled;
import static dev.loop.examples.ExternalTools.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.ExternalTools.Result;
import dev.loop.testkit.Cell;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The RESP server driven by Redis' own clients, redis-cli and redis-benchmark, on every backend with sockets. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RespClientsTest {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    static Stream<Object[]> servers() {
        return RespProtocolTest.servers();
    }

    private static RespServer start(Cell cell, int loops) throws Exception {
        return RespServer.start(RespServer.Config.defaults().withAddress(ANY_PORT).withBackend(cell.backend())
                .withLoops(loops));
    }

    private static String port(RespServer server) {
        return Integer.toString(server.address().getPort());
    }

    /** redis-cli reading commands from stdin, one per line, printing each reply raw. */
    private static List<String> cli(RespServer server, String commands) throws Exception {
        Result r = run(DEADLINE, commands.getBytes(StandardCharsets.UTF_8), "redis-cli", "-p", port(server));
        assertEquals(0, r.exit(), r.toString());
        return r.out().lines().toList();
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void redisCliSeesRedisSemantics(Cell cell, int loops) throws Exception {
        assumeInstalled("redis-cli", "redis-tools");
        try (RespServer server = start(cell, loops)) {
            List<String> replies = cli(server, String.join("\n",
                    "PING", "SET greeting \"hello world\"", "GET greeting", "GET missing", "SET n 10", "INCRBY n 5",
                    "DECR n", "INCR greeting", "SET greeting again NX", "SET fresh v XX", "MSET a 1 b 2", "MGET a b c",
                    "EXISTS a b c a", "DEL a c", "SET t v EX 100", "TTL t", "EXPIRE n 50", "PERSIST n", "TTL n",
                    "DBSIZE", "NOSUCH arg", "GET", "ECHO 'one two'", "FLUSHALL", "DBSIZE") + "\n");
            // (redis-cli prints an empty line after each error when its output is not a terminal)
            assertEquals(List.of("PONG", "OK", "hello world", "", "OK", "15", "14",
                    "ERR value is not an integer or out of range", "", "", "", "OK", "1", "2", "", "3", "1", "OK", "100",
                    "1", "1", "-1", "4", "ERR unknown command 'NOSUCH', with args beginning with: 'arg' ", "",
                    "ERR wrong number of arguments for 'get' command", "", "one two", "OK", "0"), replies);
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void keysExpireThroughTheLoopsTimers(Cell cell, int loops) throws Exception {
        assumeInstalled("redis-cli", "redis-tools");
        try (RespServer server = start(cell, loops)) {
            assertEquals(List.of("OK", "OK", "1"), cli(server, "SET short v PX 50\nSET long v EX 1000\nEXISTS short\n"));
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            List<String> state;
            do {
                state = cli(server, "EXISTS short\nDBSIZE\n");
            } while (!state.equals(List.of("0", "1")) && System.nanoTime() < deadline);
            assertEquals(List.of("0", "1"), state, "the short-lived key expired, the other did not");
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void redisCliPipeMassInsertion(Cell cell, int loops) throws Exception {
        assumeInstalled("redis-cli", "redis-tools");
        int n = 20_000;
        ByteArrayOutputStream proto = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            String k = "key:" + i;
            String v = "value:" + i;
            proto.writeBytes(("*3\r\n$3\r\nSET\r\n$" + k.length() + "\r\n" + k + "\r\n$" + v.length() + "\r\n" + v + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        }
        try (RespServer server = start(cell, loops)) {
            Result r = run(DEADLINE, proto.toByteArray(), "redis-cli", "-p", port(server), "--pipe");
            assertEquals(0, r.exit(), r.toString());
            assertTrue(r.out().contains("errors: 0, replies: " + n), r.out());
            assertEquals(List.of(Integer.toString(n), "value:12345"), cli(server, "DBSIZE\nGET key:12345\n"));
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void redisBenchmarkCompletesWithAndWithoutPipelining(Cell cell, int loops) throws Exception {
        assumeInstalled("redis-benchmark", "redis-tools");
        // a multiple of the pipeline depth: redis-benchmark sends whole pipelines, so it would overshoot
        // by a part of one (against Redis itself too) and the counter check below would not hold
        int requests = loops == 1 ? 20_000 : 4_800;
        try (RespServer server = start(cell, loops)) {
            for (String pipeline : new String[] {"1", "16"}) {
                Result r = run(DEADLINE, "redis-benchmark", "-p", port(server), "-n", Integer.toString(requests),
                        "-c", "10", "-q", "-t", "ping,set,get,incr", "-P", pipeline);
                assertEquals(0, r.exit(), r.toString());
                Map<String, Double> rates = rates(r.out());
                assertEquals(List.of("GET", "INCR", "PING_INLINE", "PING_MBULK", "SET"), List.copyOf(rates.keySet()),
                        "-P " + pipeline + ": " + r);
                rates.forEach((test, rate) -> assertTrue(rate > 0, test + " at " + rate + " requests per second"));
                assertTrue(!r.err().contains("ERR") && !r.out().contains("ERR"), r.toString());
            }
            assertEquals(List.of(Integer.toString(2 * requests)), cli(server, "GET counter:__rand_int__\n"),
                    "every INCR of both runs reached the key");
        }
    }

    /** The final "TEST: N requests per second" of each test in redis-benchmark's quiet output. */
    private static Map<String, Double> rates(String out) {
        Map<String, Double> rates = new TreeMap<>();
        Matcher m = Pattern.compile("([A-Z_]+): ([0-9.]+) requests per second").matcher(out);
        while (m.find()) {
            rates.put(m.group(1), Double.parseDouble(m.group(2)));
        }
        return rates;
    }
}
