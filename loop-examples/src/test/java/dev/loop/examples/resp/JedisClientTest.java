package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.testkit.Cell;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * Jedis as it comes (RESP2, CLIENT SETINFO on connect): basics, a database other than 0,
 * pipelining, transactions and pub/sub, against this server on every backend and against
 * redis-server with the same assertions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JedisClientTest {
    private static final int TIMEOUT_MS = 10_000;

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> targets() {
        return RedisTarget.targets();
    }

    private static Jedis jedis(RedisTarget t, int db) {
        return new Jedis(new HostAndPort("127.0.0.1", t.port()), DefaultJedisClientConfig.builder()
                .database(db).timeoutMillis(TIMEOUT_MS).build());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void basicsAndDatabaseOne(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell); Jedis j = jedis(t, 0); Jedis one = jedis(t, 1)) {
            assertEquals("PONG", j.ping());
            assertEquals("OK", j.set("k", "v"));
            assertEquals("v", j.get("k"));
            assertNull(j.get("missing"));
            assertEquals("OK", j.set("t", "v", SetParams.setParams().px(100_000)));
            long pttl = j.pttl("t");
            assertTrue(pttl > 90_000 && pttl <= 100_000, "pttl " + pttl);
            assertEquals(11L, j.incrBy("n", 11));
            assertEquals(10L, j.decr("n"));
            assertEquals("OK", j.mset("a", "1", "b", "2"));
            assertEquals(java.util.Arrays.asList("1", null, "2"), j.mget("a", "c", "b"));
            assertEquals(1L, j.expire("a", 50));
            assertEquals(50L, j.ttl("a"));
            assertEquals(1L, j.persist("a"));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.incr("k"));
            assertEquals("ERR value is not an integer or out of range", e.getMessage());
            assertEquals("OK", j.clientSetname("jedis-test"));
            assertEquals("jedis-test", j.clientGetname());
            assertTrue(j.clientInfo().contains(" resp=2"), j.clientInfo());

            assertNull(one.get("k"), "database 1 is another keyspace");
            assertEquals("OK", one.set("k", "in one"));
            assertEquals("v", j.get("k"));
            assertEquals(1L, one.dbSize());
            assertTrue(j.info("keyspace").contains("db1:keys=1,expires=0"), j.info("keyspace"));
            assertEquals(2L, j.del("k", "t", "zz"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void pipelining(Cell cell) throws Exception {
        int n = 5000;
        try (RedisTarget t = RedisTarget.start(cell); Jedis j = jedis(t, 0)) {
            Pipeline p = j.pipelined();
            List<Response<Long>> counts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                p.set("key:" + i, "value:" + i);
                counts.add(p.incr("counter"));
            }
            Response<String> last = p.get("key:" + (n - 1));
            p.sync();
            for (int i = 0; i < n; i++) {
                assertEquals(i + 1L, counts.get(i).get(), "reply " + i + " in order");
            }
            assertEquals("value:" + (n - 1), last.get());
            assertEquals(n + 1L, j.dbSize());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void transactions(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell); Jedis j = jedis(t, 0); Jedis other = jedis(t, 0)) {
            Transaction tx = j.multi();
            Response<String> set = tx.set("a", "1");
            Response<Long> incr = tx.incr("a");
            Response<Long> wrong = tx.incr("missing-then-text");
            tx.set("s", "text");
            Response<Long> fails = tx.incr("s");
            List<Object> replies = tx.exec();
            assertEquals(5, replies.size());
            assertEquals("OK", set.get());
            assertEquals(2L, incr.get());
            assertEquals(1L, wrong.get());
            JedisDataException e = assertThrows(JedisDataException.class, fails::get);
            assertEquals("ERR value is not an integer or out of range", e.getMessage(),
                    "a command that fails when run does not abort the others");

            j.watch("w");
            other.set("w", "theirs");
            Transaction watched = j.multi();
            watched.set("w", "mine");
            assertNull(watched.exec(), "a watched key changed: EXEC runs nothing");
            assertEquals("theirs", j.get("w"));

            Transaction discarded = j.multi();
            discarded.set("d", "never");
            assertEquals("OK", discarded.discard());
            assertNull(j.get("d"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void pubSub(Cell cell) throws Exception {
        int n = 300;
        try (RedisTarget t = RedisTarget.start(cell); Jedis subscriber = jedis(t, 0); Jedis pub = jedis(t, 0)) {
            BlockingQueue<String> got = new LinkedBlockingQueue<>();
            CountDownLatch subscribed = new CountDownLatch(1);
            CountDownLatch psubscribed = new CountDownLatch(1);
            JedisPubSub listener = new JedisPubSub() {
                @Override
                public void onMessage(String channel, String message) {
                    got.add(channel + ":" + message);
                }

                @Override
                public void onPMessage(String pattern, String channel, String message) {
                    got.add(pattern + "|" + channel + ":" + message);
                }

                @Override
                public void onSubscribe(String channel, int count) {
                    subscribed.countDown();
                }

                @Override
                public void onPSubscribe(String pattern, int count) {
                    psubscribed.countDown();
                }
            };
            CompletableFuture<Void> loop = CompletableFuture.runAsync(() -> subscriber.subscribe(listener, "orders"));
            assertTrue(subscribed.await(10, TimeUnit.SECONDS), "SUBSCRIBE confirmed");
            listener.psubscribe("ord[a-z]rs", "x*");
            assertTrue(psubscribed.await(10, TimeUnit.SECONDS), "PSUBSCRIBE confirmed");
            assertEquals(2L, pub.publish("orders", "one"));
            assertEquals("orders:one", poll(got));
            assertEquals("ord[a-z]rs|orders:one", poll(got));
            for (int i = 0; i < n; i++) {
                pub.publish("xyz", Integer.toString(i));
            }
            for (int i = 0; i < n; i++) {
                assertEquals("x*|xyz:" + i, poll(got), "message " + i);
            }
            listener.ping();
            listener.unsubscribe();
            listener.punsubscribe();
            loop.get(10, TimeUnit.SECONDS); // the client leaves subscribed mode once it has no subscription
            assertEquals("PONG", subscriber.ping());
            assertEquals(0L, pub.publish("orders", "unheard"));
        }
    }

    private static String poll(BlockingQueue<String> q) throws InterruptedException {
        String s = q.poll(10, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("no message within 10 s");
        }
        return s;
    }
}
