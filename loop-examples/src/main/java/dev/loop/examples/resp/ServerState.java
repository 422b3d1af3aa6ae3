package dev.loop.examples.resp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the connection commands report about the server as a whole: its settings, its clients,
 * and counters. Thread-safe: clients come and go on every loop; the counters are adders.
 *
 * @param requirePass the password of the default user, or null: no AUTH needed (Redis' requirepass)
 * @param port        the port clients connect to, as INFO's tcp_port shows it (set once bound)
 * @param pushLimit   how much a subscriber that does not read may make the server hold
 */
record ServerState(String requirePass, java.util.concurrent.atomic.AtomicInteger port, String backend, int loops, PushLimit pushLimit, long startNanos,
                   Map<Long, Session> clients, LongAdder connectionsReceived, LongAdder commandsProcessed,
                   LongAdder outputLimitDisconnections) {

    /**
     * Redis' {@code client-output-buffer-limit pubsub}: a subscriber whose unsent messages pass
     * {@code hard} bytes, or stay above {@code soft} bytes for {@code softNanos}, is disconnected
     * (and counted).
     */
    record PushLimit(long hard, long soft, long softNanos) {
        static final PushLimit REDIS = new PushLimit(32L << 20, 8L << 20, 60_000_000_000L);
    }

    /** The version redis-server whose replies this server gives. */
    static final String REDIS_VERSION = "7.2.0";

    static ServerState of(String requirePass, int port, String backend, int loops, PushLimit pushLimit) {
        return new ServerState(requirePass, new java.util.concurrent.atomic.AtomicInteger(port), backend, loops, pushLimit, System.nanoTime(),
                new ConcurrentHashMap<>(), new LongAdder(), new LongAdder(), new LongAdder());
    }

    /** A server without a password, for the commands' tests. */
    static ServerState standalone() {
        return of(null, 0, "none", 1, PushLimit.REDIS);
    }

    boolean authRequired() {
        return requirePass != null;
    }
}
