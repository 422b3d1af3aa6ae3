package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.testkit.Cell;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lettuce as it comes (RESP3, HELLO on connect, CLIENT SETINFO), its sync and async APIs,
 * pipelining, transactions and pub/sub, against this server on every backend and against
 * redis-server with the same assertions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LettuceClientTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** One set of Netty threads for every test: starting them is most of a client's cost. */
    private static final ClientResources RESOURCES = DefaultClientResources.builder().ioThreadPoolSize(2)
            .computationThreadPoolSize(2).build();

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> targets() {
        return RedisTarget.targets();
    }

    @AfterAll
    static void stopResources() {
        RESOURCES.shutdown(0, 2, TimeUnit.SECONDS);
    }

    private static RedisClient client(RedisTarget t, String password) {
        RedisURI.Builder uri = RedisURI.builder().withHost("127.0.0.1").withPort(t.port()).withTimeout(WAIT);
        if (password != null) {
            uri.withPassword(password.toCharArray());
        }
        return RedisClient.create(RESOURCES, uri.build());
    }

    private static void shutdown(RedisClient c) {
        c.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void syncApiSpeaksResp3AfterHello(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell)) {
            RedisClient client = client(t, null);
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> r = conn.sync();
                assertEquals("PONG", r.ping());
                assertTrue(r.clientInfo().contains(" resp=3"), "Lettuce's default protocol: " + r.clientInfo());
                assertEquals("OK", r.set("greeting", "hello"));
                assertEquals("hello", r.get("greeting"));
                assertNull(r.get("missing"));
                assertEquals("OK", r.set("t", "v", SetArgs.Builder.ex(100)));
                assertEquals(100L, r.ttl("t"));
                assertEquals(3L, r.incrby("n", 3));
                assertEquals("OK", r.mset(Map.of("a", "1", "b", "2")));
                assertEquals(List.of(KeyValue.just("a", "1"), KeyValue.empty("zz"), KeyValue.just("b", "2")),
                        r.mget("a", "zz", "b"));
                assertEquals(2L, r.exists("a", "b", "zz"));
                assertEquals(1L, r.del("a", "zz"));
                assertEquals("OK", r.clientSetname("lettuce-test"));
                assertEquals("lettuce-test", r.clientGetname());
                assertTrue(r.clientId() > 0);
                assertTrue(r.info("server").contains("redis_mode:standalone"), r.info("server"));
                assertTrue(r.info("keyspace").contains("db0:keys=4,expires=1,avg_ttl="), r.info("keyspace"));
                RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class, () -> r.incr("t"));
                assertEquals("ERR value is not an integer or out of range", e.getMessage());
                assertEquals("OK", r.select(1));
                assertEquals(0L, r.dbsize());
                assertNull(r.get("greeting"), "database 1 is another keyspace");
                assertTrue(r.commandCount() > 20);
            }
            shutdown(client);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void asyncPipelineWithAutoflushOff(Cell cell) throws Exception {
        int n = 2000;
        try (RedisTarget t = RedisTarget.start(cell)) {
            RedisClient client = client(t, null);
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisAsyncCommands<String, String> a = conn.async();
                conn.setAutoFlushCommands(false);
                List<RedisFuture<?>> futures = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    futures.add(a.set("key:" + i, "value:" + i));
                    futures.add(a.incr("counter"));
                }
                RedisFuture<String> last = a.get("key:" + (n - 1));
                futures.add(last);
                conn.flushCommands(); // one write of every command: the server sees one deep pipeline
                assertTrue(LettuceFutures.awaitAll(WAIT, futures.toArray(RedisFuture[]::new)));
                assertEquals("value:" + (n - 1), last.get());
                conn.setAutoFlushCommands(true);
                assertEquals(Long.toString(n), a.get("counter").get(10, TimeUnit.SECONDS));
                assertEquals((long) n + 1, a.dbsize().get(10, TimeUnit.SECONDS));
            }
            shutdown(client);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void transactionsAndWatch(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell)) {
            RedisClient client = client(t, null);
            try (StatefulRedisConnection<String, String> c1 = client.connect();
                 StatefulRedisConnection<String, String> c2 = client.connect()) {
                RedisCommands<String, String> r = c1.sync();
                assertEquals("OK", r.multi());
                assertNull(r.set("a", "1"), "a queued command's result is EXEC's");
                r.incr("a");
                r.get("a");
                TransactionResult result = r.exec();
                assertFalse(result.wasDiscarded());
                assertEquals(List.of("OK", 2L, "2"), result.stream().toList());

                assertEquals("OK", r.watch("w"));
                assertEquals("OK", c2.sync().set("w", "theirs")); // another client, maybe another loop
                r.multi();
                r.set("w", "mine");
                assertTrue(r.exec().wasDiscarded(), "a watched key changed: EXEC runs nothing");
                assertEquals("theirs", r.get("w"));

                r.watch("w");
                r.multi();
                r.set("w", "mine");
                assertFalse(r.exec().wasDiscarded(), "nobody wrote it since WATCH");
                assertEquals("mine", c2.sync().get("w"));
            }
            shutdown(client);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void pubSubPushMessagesInOrder(Cell cell) throws Exception {
        int n = 500;
        try (RedisTarget t = RedisTarget.start(cell)) {
            RedisClient client = client(t, null);
            BlockingQueue<String> got = new LinkedBlockingQueue<>();
            try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
                 StatefulRedisConnection<String, String> pub = client.connect()) {
                sub.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        got.add(channel + ":" + message);
                    }

                    @Override
                    public void message(String pattern, String channel, String message) {
                        got.add(pattern + "|" + channel + ":" + message);
                    }
                });
                sub.sync().subscribe("news");
                sub.sync().psubscribe("n?ws*", "other");
                assertEquals("PONG", sub.sync().ping(), "RESP3: a subscriber runs any command");
                assertEquals(Map.of("news", 1L), pub.sync().pubsubNumsub("news"));
                assertEquals(2L, pub.sync().publish("news", "first"));
                assertEquals(List.of("news:first", "n?ws*|news:first"), List.of(poll(got), poll(got)));
                for (int i = 0; i < n; i++) {
                    pub.async().publish("newsroom", Integer.toString(i));
                }
                for (int i = 0; i < n; i++) {
                    assertEquals("n?ws*|newsroom:" + i, poll(got), "message " + i);
                }
                sub.sync().unsubscribe("news");
                sub.sync().punsubscribe();
                assertEquals(0L, pub.sync().publish("news", "unheard"));
                assertEquals(List.of(), pub.sync().pubsubChannels());
            }
            shutdown(client);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void passwordInTheUriIsSentWithHello(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell, "s3cret")) {
            RedisClient client = client(t, "s3cret");
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                assertEquals("PONG", conn.sync().ping());
            }
            shutdown(client);
            RedisClient wrong = client(t, "nope");
            RedisConnectionException e = assertThrows(RedisConnectionException.class, wrong::connect);
            assertTrue(String.valueOf(e.getCause()).contains("WRONGPASS"), String.valueOf(e.getCause()));
            shutdown(wrong);
        }
    }

    private static String poll(BlockingQueue<String> q) throws InterruptedException {
        String s = q.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (s == null) {
            throw new AssertionError("no message within " + WAIT);
        }
        return s;
    }
}
