package dev.loop.examples.resp;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.examples.io.OutputBuffer;
import dev.loop.examples.io.ServerArgs;
import dev.loop.examples.io.ServerHost;
import dev.loop.net.ServerOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code resp-server}: a key-value server speaking the Redis protocol (RESP2, and RESP3 after
 * {@code HELLO 3}) on one loop or a loop group, so {@code redis-cli}, {@code redis-benchmark} and
 * the common client libraries can drive it. Thread-safe.
 *
 * <p>String keys with {@code SET} (EX/PX/NX/XX/KEEPTTL/GET), {@code GET}, {@code DEL},
 * {@code EXISTS}, counters, {@code MGET}/{@code MSET}, TTLs ({@code EXPIRE}, {@code PEXPIRE},
 * {@code TTL}, {@code PTTL}, {@code PERSIST}) kept as loop timers, and the housekeeping clients
 * need ({@code PING}, {@code ECHO}, {@code SELECT}, {@code DBSIZE}, {@code FLUSHALL},
 * {@code QUIT}, {@code COMMAND}, {@code CONFIG GET}); the connection's handshake ({@code HELLO},
 * {@code AUTH}, {@code CLIENT}, {@code INFO}, {@code RESET}), transactions ({@code MULTI},
 * {@code EXEC}, {@code WATCH}) and pub/sub; inline and multibulk requests, pipelining.
 *
 * <p>A value is a string, hash, list or set, each with its data commands ({@link DataCommandTable}),
 * blocking list pops among them ({@link Blocking}); replies are redis-server 7.0's bytes.
 *
 * <p>The keyspace lives on the first loop. With more loops, the others accept and parse for their
 * clients and hand each batch of commands to the first one (see {@link RespConnection}): Redis 6's
 * I/O threads, with loops instead of threads and no locks.
 */
public final class RespServer implements AutoCloseable {

    /**
     * Everything the server can be told.
     *
     * @param maxArgs    arguments per command at most (Redis: 1024 * 1024)
     * @param maxBulk    bytes per argument at most (Redis' proto-max-bulk-len, 512 MB by default);
     *                   a longer {@code $N} is refused before any of its bytes is buffered
     * @param maxCommand bytes one connection's command in progress may hold, its arguments' bytes
     *                   and a few bytes each (Redis' client-query-buffer-limit, 1 GB by default);
     *                   what a client may make the server hold is this, not what it declares
     * @param requirePass the default user's password (Redis' requirepass), or null: none needed
     * @param pushHardLimit bytes of pub/sub messages a subscriber may leave unread before it is
     *                   disconnected (Redis: 32 MB); {@code pushSoftLimit} for {@code pushSoftSeconds}
     *                   (Redis: 8 MB for 60 s) disconnects it too
     */
    public record Config(InetSocketAddress address, String backend, String timers, int loops, int maxArgs,
                         int maxBulk, long maxCommand, int databases, String requirePass, long pushHardLimit,
                         long pushSoftLimit, int pushSoftSeconds) {
        public Config {
            if (databases < 1) {
                throw new IllegalArgumentException("databases must be at least 1, not " + databases);
            }
        }

        public static Config defaults() {
            return new Config(new InetSocketAddress(InetAddress.getLoopbackAddress(), 6379), null, null, 1,
                    1024 * 1024, 512 * 1024 * 1024, 1024L * 1024 * 1024, 16, null, 32L << 20, 8L << 20, 60);
        }

        /** Clients must AUTH with {@code password} (null: no password) before any other command. */
        public Config withRequirePass(String password) {
            return new Config(address, backend, timers, loops, maxArgs, maxBulk, maxCommand, databases, password,
                    pushHardLimit, pushSoftLimit, pushSoftSeconds);
        }

        /** Redis' {@code client-output-buffer-limit pubsub hard soft seconds}. */
        public Config withPushLimits(long hard, long soft, int seconds) {
            return new Config(address, backend, timers, loops, maxArgs, maxBulk, maxCommand, databases, requirePass,
                    hard, soft, seconds);
        }

        /** {@code SELECT} takes 0 to {@code n - 1}, as Redis' {@code databases} setting (16 by default). */
        public Config withDatabases(int n) {
            return new Config(address, backend, timers, loops, maxArgs, maxBulk, maxCommand, n, requirePass,
                    pushHardLimit, pushSoftLimit, pushSoftSeconds);
        }

        public Config withAddress(InetSocketAddress a) {
            return new Config(a, backend, timers, loops, maxArgs, maxBulk, maxCommand, databases, requirePass,
                    pushHardLimit, pushSoftLimit, pushSoftSeconds);
        }

        public Config withBackend(String b) {
            return new Config(address, b, timers, loops, maxArgs, maxBulk, maxCommand, databases, requirePass,
                    pushHardLimit, pushSoftLimit, pushSoftSeconds);
        }

        public Config withTimers(String t) {
            return new Config(address, backend, t, loops, maxArgs, maxBulk, maxCommand, databases, requirePass,
                    pushHardLimit, pushSoftLimit, pushSoftSeconds);
        }

        public Config withLoops(int n) {
            return new Config(address, backend, timers, n, maxArgs, maxBulk, maxCommand, databases, requirePass,
                    pushHardLimit, pushSoftLimit, pushSoftSeconds);
        }

        public Config withLimits(int args, int bulk, long command) {
            return new Config(address, backend, timers, loops, args, bulk, command, databases, requirePass,
                    pushHardLimit, pushSoftLimit, pushSoftSeconds);
        }
    }

    private final ServerHost host;
    private final Config config;
    private final LongAdder protocolErrors;
    private final AtomicReference<RespConnection.Data> data;

    private RespServer(ServerHost host, Config config, LongAdder protocolErrors, AtomicReference<RespConnection.Data> data) {
        this.host = host;
        this.config = config;
        this.protocolErrors = protocolErrors;
        this.data = data;
    }

    /** Subscribers disconnected for leaving more pub/sub messages unread than the limits allow. */
    public long pushLimitDisconnections() {
        return data.get().commands().server().outputLimitDisconnections().sum();
    }

    /** Clients blocked in BLPOP, BRPOP or BLMOVE now, asked of the data loop (for tests). */
    int blockedClients() throws Exception {
        java.util.concurrent.CompletableFuture<Integer> n = new java.util.concurrent.CompletableFuture<>();
        dataLoop().execute(() -> n.complete(data.get().commands().blocking().blockedClients()));
        return n.get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Connections answered {@code -ERR Protocol error} and closed so far, on every loop. */
    public long protocolErrors() {
        return protocolErrors.sum();
    }

    /** Starts serving on threads of its own. */
    public static RespServer start(Config config) throws IOException {
        LoopOptions loopOptions = LoopOptions.defaults().withBackend(config.backend()).withTimers(config.timers());
        AtomicReference<RespConnection.Data> data = new AtomicReference<>();
        LongAdder protocolErrors = new LongAdder();
        ServerHost host = ServerHost.start("resp", loopOptions, config.loops(), config.address(), ServerOptions.defaults(),
                service(config, data, protocolErrors));
        return started(host, config, data, protocolErrors);
    }

    /**
     * Starts serving on {@code loop}, a loop the caller runs (a simulated host's, a test's), with
     * the wiring {@link #start(Config)} uses; {@code config}'s backend, timers and loop count do not
     * apply. Call it on {@code loop}'s thread or before the loop runs; {@link #close()} closes the
     * listener and every connection and leaves the loop open.
     */
    public static RespServer start(Loop loop, Config config) throws IOException {
        AtomicReference<RespConnection.Data> data = new AtomicReference<>();
        LongAdder protocolErrors = new LongAdder();
        ServerHost host = ServerHost.on(loop, config.address(), ServerOptions.defaults(),
                service(config, data, protocolErrors));
        return started(host, config, data, protocolErrors);
    }

    /** The server's wiring: the keyspace on the first loop, a parser and connection per client on every loop. */
    private static ServerHost.Service service(Config config, AtomicReference<RespConnection.Data> data,
                                              LongAdder protocolErrors) {
        AtomicLong clientIds = new AtomicLong();
        return (loop, index, all) -> {
            if (index == 0) {
                Keyspace[] databases = new Keyspace[config.databases()];
                for (int i = 0; i < databases.length; i++) {
                    databases[i] = new Keyspace(loop);
                }
                ServerState state = ServerState.of(config.requirePass(), config.address().getPort(),
                        loop.backendName(), all.size(), new ServerState.PushLimit(config.pushHardLimit(),
                                config.pushSoftLimit(), config.pushSoftSeconds() * 1_000_000_000L));
                data.set(new RespConnection.Data(loop, new Commands(databases, configValues(config), state),
                        protocolErrors, clientIds));
            }
            RespConnection.Data d = data.get();
            OutputBuffer out = new OutputBuffer(64 * 1024);
            return c -> new RespConnection(c, d, out,
                    new RespParser(config.maxArgs(), config.maxBulk(), config.maxCommand())).start();
        };
    }

    private static RespServer started(ServerHost host, Config config, AtomicReference<RespConnection.Data> data,
                                      LongAdder protocolErrors) {
        data.get().commands().server().port().set(host.address().getPort());
        return new RespServer(host, config, protocolErrors, data);
    }

    /** What CONFIG GET reports: enough for redis-benchmark, and true of this server. */
    private static Map<String, String> configValues(Config c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("save", "");
        m.put("appendonly", "no");
        m.put("databases", Integer.toString(c.databases()));
        m.put("maxmemory", "0");
        m.put("timeout", "0");
        m.put("proto-max-bulk-len", Integer.toString(c.maxBulk()));
        m.put("client-query-buffer-limit", Long.toString(c.maxCommand()));
        m.put("bind", c.address().getAddress().getHostAddress());
        m.put("port", Integer.toString(c.address().getPort()));
        return m;
    }

    public InetSocketAddress address() {
        return host.address();
    }

    public String backendName() {
        return host.backendName();
    }

    /** The loops serving it, the data loop first: for reading their metrics. */
    public List<Loop> loops() {
        return host.loops();
    }

    /** The loop that holds the keyspace. */
    public Loop dataLoop() {
        return host.loops().get(0);
    }

    @Override
    public void close() {
        host.close();
    }

    /**
     * The command line: {@code resp-server [--port P] [--host H] [--backend B] [--timers T] [--loops N]
     * [--max-bulk BYTES] [--max-query-buffer BYTES] [--databases N] [--requirepass PASSWORD]}.
     */
    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Config c;
        try {
            ServerArgs a = new ServerArgs("resp-server", args,
                    List.of("--port", "--host", "--backend", "--timers", "--loops", "--max-bulk",
                            "--max-query-buffer", "--databases", "--requirepass"), List.of());
            InetAddress host = InetAddress.getByName(a.string("--host", "127.0.0.1"));
            Config d = Config.defaults();
            c = d.withAddress(new InetSocketAddress(host, a.integer("--port", 6379, 0, 65535)))
                    .withBackend(a.string("--backend", null))
                    .withTimers(a.string("--timers", null))
                    .withLoops(a.integer("--loops", 1, 1, 1024))
                    .withLimits(d.maxArgs(), a.integer("--max-bulk", d.maxBulk(), 1, Integer.MAX_VALUE - 64),
                            a.integer("--max-query-buffer", (int) d.maxCommand(), 1024, Integer.MAX_VALUE - 64))
                    .withDatabases(a.integer("--databases", d.databases(), 1, 1_000_000))
                    .withRequirePass(a.string("--requirepass", null));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        try (RespServer server = start(c)) {
            server.host.stopOnSignals(); // before the banner: a signal sent once it is read finds the handlers
            out.println("resp server (Redis protocol) on " + server.address().getHostString() + ":"
                    + server.address().getPort() + ", backend " + server.backendName() + ", timers "
                    + server.dataLoop().timersName() + ", " + c.loops() + (c.loops() == 1 ? " loop"
                    : " loops (" + server.host.acceptMode() + "; keys on the first)"));
            out.flush();
            String signal = server.host.awaitSignalOrClose();
            if (signal != null) {
                out.println("stopping on SIG" + signal);
            }
        }
        return 0;
    }

    @Override
    public String toString() {
        return "RespServer[" + address() + ", " + loops().size() + " loops, " + backendName() + "]";
    }
}
