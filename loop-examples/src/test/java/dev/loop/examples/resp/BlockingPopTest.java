package dev.loop.examples.resp;

import static dev.loop.examples.ExternalTools.assumeInstalled;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.testkit.Cell;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * BLPOP, BRPOP and BLMOVE over the wire, each scenario played on our server (every backend with
 * sockets, on one loop and on two: blocking is the data loop's whoever reads the client) and on a real redis-server, every reply
 * compared byte for byte. A scenario waits until the server says its clients are blocked (ours:
 * {@link RespServer#blockedClients()}; Redis: {@code INFO clients}) before it pushes, so the order
 * clients blocked in is the order they were sent in.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BlockingPopTest {
    private static RealRedis redis;

    @BeforeAll
    static void startRedis() throws Exception {
        assumeInstalled("redis-server", "redis-server");
        redis = RealRedis.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    /** Backends with sockets, each on one loop and on two. */
    static Stream<Object[]> servers() {
        return RespProtocolTest.servers();
    }

    /** One server under test: how to reach it and how to ask how many of its clients are blocked. */
    private interface Target {
        InetSocketAddress address();

        int blocked() throws Exception;
    }

    /** Plays {@code scenario} on both servers and compares the transcripts. */
    private static void both(Cell cell, int loops, Scenario scenario) throws Exception {
        List<String> theirs;
        try (RealRedis.Client admin = new RealRedis.Client(redis.address)) {
            admin.callString("FLUSHALL");
            theirs = scenario.play(new Target() {
                @Override
                public InetSocketAddress address() {
                    return redis.address;
                }

                @Override
                public int blocked() throws Exception {
                    String info = admin.callString("INFO", "clients");
                    for (String line : info.split("\r\n")) {
                        if (line.startsWith("blocked_clients:")) {
                            return Integer.parseInt(line.substring("blocked_clients:".length()));
                        }
                    }
                    throw new AssertionError("no blocked_clients in " + info);
                }
            });
        }
        List<String> ours;
        try (RespServer server = RespProtocolTest.start(cell, loops)) {
            ours = scenario.play(new Target() {
                @Override
                public InetSocketAddress address() {
                    return server.address();
                }

                @Override
                public int blocked() throws Exception {
                    return server.blockedClients();
                }
            });
        }
        assertEquals(theirs, ours);
    }

    @FunctionalInterface
    private interface Scenario {
        List<String> play(Target t) throws Exception;
    }

    /** Waits until {@code n} clients are blocked (a bounded poll of the server's own count). */
    private static void awaitBlocked(Target t, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.blocked() != n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never " + n + " blocked clients; " + t.blocked() + " are");
            }
            Thread.onSpinWait();
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void waitersAreServedInArrivalOrderByWhicheverKeyIsPushed(Cell cell, int loops) throws Exception {
        both(cell, loops, t -> {
            try (RealRedis.Client a = new RealRedis.Client(t.address());
                 RealRedis.Client b = new RealRedis.Client(t.address());
                 RealRedis.Client c = new RealRedis.Client(t.address());
                 RealRedis.Client d = new RealRedis.Client(t.address())) {
                a.send("BLPOP", "k1", "k2", "0");
                awaitBlocked(t, 1);
                b.send("BRPOP", "k2", "0");
                awaitBlocked(t, 2);
                c.send("BLPOP", "k2", "k1", "0");
                awaitBlocked(t, 3);
                List<String> l = new ArrayList<>();
                l.add(d.callString("RPUSH", "k2", "x", "y"));
                l.add(a.read());
                l.add(b.read());
                l.add(d.callString("LRANGE", "k2", "0", "-1"));
                l.add(d.callString("EXISTS", "k2"));
                l.add(d.callString("LPUSH", "k1", "z"));
                l.add(c.read());
                l.add(String.valueOf(t.blocked()));
                return l;
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void aPipelineParksAtTheBlockingCommandAndGoesOnOnceItIsServed(Cell cell, int loops) throws Exception {
        both(cell, loops, t -> {
            try (RealRedis.Client a = new RealRedis.Client(t.address());
                 RealRedis.Client d = new RealRedis.Client(t.address())) {
                a.send("SET", "x", "1");
                a.send("BLMOVE", "src", "dst", "RIGHT", "LEFT", "0");
                a.send("GET", "x");
                a.send("LRANGE", "dst", "0", "-1");
                awaitBlocked(t, 1);
                List<String> l = new ArrayList<>();
                l.add(d.callString("RPUSH", "src", "a", "b"));
                for (int i = 0; i < 4; i++) {
                    l.add(a.read());
                }
                l.add(d.callString("LRANGE", "src", "0", "-1"));
                return l;
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void aClientThatDisconnectsIsUnblockedAndTakesNothing(Cell cell, int loops) throws Exception {
        both(cell, loops, t -> {
            try (RealRedis.Client d = new RealRedis.Client(t.address())) {
                try (RealRedis.Client a = new RealRedis.Client(t.address())) {
                    a.send("BLPOP", "k", "0");
                    awaitBlocked(t, 1);
                }
                awaitBlocked(t, 0);
                return List.of(d.callString("RPUSH", "k", "v"), d.callString("LLEN", "k"));
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void aTimeoutAnswersTheNullArrayAndAWrongDestinationWrongType(Cell cell, int loops) throws Exception {
        both(cell, loops, t -> {
            try (RealRedis.Client a = new RealRedis.Client(t.address());
                 RealRedis.Client d = new RealRedis.Client(t.address())) {
                List<String> l = new ArrayList<>();
                a.setReadTimeout(Duration.ofSeconds(10));
                l.add(a.callString("BRPOP", "none", "0.05")); // 50 ms of real time: the server's own timer
                a.send("BLMOVE", "src", "dst", "LEFT", "LEFT", "0");
                awaitBlocked(t, 1);
                l.add(d.callString("SET", "dst", "string"));
                l.add(d.callString("RPUSH", "src", "v"));
                l.add(a.read());
                l.add(d.callString("LRANGE", "src", "0", "-1"));
                l.add(String.valueOf(t.blocked()));
                return l;
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("servers")
    void aBlockedClientsFurtherCommandsWaitBoundedAndRunOnceItIsServed(Cell cell, int loops) throws Exception {
        int pings = 40_000; // 240 KB of inline PINGs: past what a parked client may make the server buffer
        try (RespServer server = RespProtocolTest.start(cell, loops);
             RealRedis.Client a = new RealRedis.Client(server.address());
             RealRedis.Client d = new RealRedis.Client(server.address())) {
            a.send("BLPOP", "k", "0");
            awaitBlocked(server, 1);
            java.util.concurrent.CompletableFuture<Void> writer = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    a.sendRaw("PING\r\n".repeat(pings).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertEquals(1, server.blockedClients(), "still blocked: what it sent meanwhile waits");
            assertEquals(":1\r\n", d.callString("RPUSH", "k", "v"));
            assertEquals("*2\r\n$1\r\nk\r\n$1\r\nv\r\n", a.read());
            for (int i = 0; i < pings; i++) {
                assertEquals("+PONG\r\n", a.read(), "reply " + i);
            }
            writer.get(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitBlocked(RespServer server, int n) throws Exception {
        awaitBlocked(new Target() {
            @Override
            public InetSocketAddress address() {
                return server.address();
            }

            @Override
            public int blocked() throws Exception {
                return server.blockedClients();
            }
        }, n);
    }
}
