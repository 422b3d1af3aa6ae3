package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.examples.ExternalTools;
import dev.loop.testkit.Cell;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;

/**
 * What the clients' tests connect to: this server on one backend, or a real {@code redis-server}
 * started for the test class. Each test runs against both with the same assertions, so where the
 * two differ a pair of results shows it: one passes, the other fails.
 *
 * <p>A redis-server is started once per configuration (password or none) and kept until the JVM
 * ends; each target begins with FLUSHALL on it. Ours is started per target, on two loops, so the
 * clients' connections land on different loops than the keyspace and each other.
 */
final class RedisTarget implements AutoCloseable {
    private static final Map<String, Process> REDIS = new ConcurrentHashMap<>();
    private static final Map<String, Integer> REDIS_PORTS = new ConcurrentHashMap<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> REDIS.values().forEach(Process::destroyForcibly)));
    }

    final String name;
    private final RespServer ours;
    private final InetSocketAddress address;

    private RedisTarget(String name, RespServer ours, InetSocketAddress address) {
        this.name = name;
        this.ours = ours;
        this.address = address;
    }

    /** Every backend with sockets, then redis-server: the tests' parameters (a null cell: redis-server). */
    static Stream<Arguments> targets() {
        List<Arguments> l = new ArrayList<>();
        dev.loop.testkit.Matrix.groups().forEach(c -> l.add(Arguments.of(Named.of("resp-server on " + c.backend(), c))));
        l.add(Arguments.of(Named.of("redis-server", (Cell) null)));
        return l.stream();
    }

    /** Starts the target of {@code cell} (null: redis-server), with {@code password} (null: none). */
    static RedisTarget start(Cell cell, String password) throws Exception {
        if (cell != null) {
            RespServer s = RespServer.start(RespServer.Config.defaults()
                    .withAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .withBackend(cell.backend()).withLoops(2).withRequirePass(password));
            return new RedisTarget("resp-server on " + s.backendName(), s, s.address());
        }
        ExternalTools.assumeInstalled("redis-server", "redis-server");
        String key = password == null ? "" : password;
        synchronized (REDIS) {
            if (!REDIS.containsKey(key)) {
                REDIS_PORTS.put(key, startRedis(password));
            }
        }
        InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), REDIS_PORTS.get(key));
        RedisTarget t = new RedisTarget("redis-server", null, a);
        t.flushAll(password);
        return t;
    }

    static RedisTarget start(Cell cell) throws Exception {
        return start(cell, null);
    }

    private static int startRedis(String password) throws Exception {
        Path dir = Files.createTempDirectory("redis-server");
        for (int attempt = 0; attempt < 5; attempt++) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            List<String> cmd = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
                    "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"));
            if (password != null) {
                cmd.addAll(List.of("--requirepass", password));
            }
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("log-" + port + ".txt").toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (p.isAlive() && System.nanoTime() < deadline) {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    REDIS.put(password == null ? "" : password, p);
                    return port;
                } catch (IOException notYet) {
                    Thread.sleep(20); // polling for the process to listen: nothing to be notified by
                }
            }
            p.destroyForcibly(); // the port was taken meanwhile, or it did not start: try another
        }
        assumeTrue(false, "redis-server did not start");
        return -1;
    }

    private void flushAll(String password) throws IOException {
        try (Socket s = ExternalTools.connect(address, java.time.Duration.ofSeconds(10))) {
            String req = (password == null ? "" : "AUTH " + password + "\r\n") + "FLUSHALL\r\n";
            s.getOutputStream().write(req.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            java.io.InputStream in = s.getInputStream();
            for (int i = 0; i < (password == null ? 1 : 2); i++) {
                String r = RespProtocolTest.readReply(in);
                assumeTrue("+OK\r\n".equals(r), "redis-server answered FLUSHALL with " + r);
            }
        }
    }

    InetSocketAddress address() {
        return address;
    }

    int port() {
        return address.getPort();
    }

    boolean isOurs() {
        return ours != null;
    }

    /** Our server, for its counters (null for redis-server). */
    RespServer server() {
        return ours;
    }

    @Override
    public void close() {
        if (ours != null) {
            ours.close();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
