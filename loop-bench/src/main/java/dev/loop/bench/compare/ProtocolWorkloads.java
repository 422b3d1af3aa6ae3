package dev.loop.bench.compare;

import io.netty.channel.epoll.Epoll;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The protocol workloads: HTTP/1.1 plaintext under {@code wrk} against our {@code http-server} on
 * each backend, Netty's HTTP codec and nginx, and the Redis protocol under {@code redis-benchmark}
 * against our {@code resp-server} on each backend and {@code redis-server}, for
 * {@link ServerRunner}. Every server runs on one thread (our one loop, Netty's one event loop,
 * nginx's one worker, Redis' main thread) pinned to the server's CPU, on 127.0.0.1.
 *
 * <p>A peer server or a load generator that is not installed is not fetched: its rows say which
 * program is missing and which Debian package brings it, and the rest runs.
 */
final class ProtocolWorkloads {
    /** TechEmpower's plaintext test pipelines 16 requests. */
    static final int HTTP_PIPELINE = 16;
    /** redis-benchmark's default client count, as issue targets name it. */
    static final int REDIS_CLIENTS = 50;
    static final int REDIS_PIPELINE = 16;
    static final String PLAINTEXT_BODY = "Hello, World!";
    /** The Netty HTTP peer's contender name, before its transport. */
    static final String NETTY_HTTP = "netty http";

    private ProtocolWorkloads() {
    }

    /** The path of {@code program} on PATH or in /usr/sbin (nginx lives there), or null. */
    static Path find(String program) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.add("/usr/sbin");
        dirs.add("/usr/local/sbin");
        for (String d : dirs) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Why {@code program} cannot run here ("n/a (... not installed ...)"), or null when it can. */
    static String missing(Path found, String program, String debianPackage) {
        return found != null ? null
                : "n/a (" + program + " not installed: apt-get install " + debianPackage + ")";
    }

    // --- HTTP ----------------------------------------------------------------------------------

    /** Plaintext, plain and pipelined, at each of the echo workload's connection counts. */
    static List<ServerLoad.Workload> http(CompareOptions o, boolean pin, Path logs) throws IOException {
        List<ServerLoad.Workload> out = new ArrayList<>();
        if (!o.runs("http")) {
            return out;
        }
        Path log = logs.resolve("wrk.log");
        for (int depth : List.of(1, HTTP_PIPELINE)) {
            Path script = logs.resolve("wrk-depth-" + depth + ".lua");
            for (int c : o.connections()) {
                String name = "http plaintext" + (depth > 1 ? " pipelined x" + depth : "") + ", "
                        + EchoWorkloads.label(c);
                out.add(new ServerLoad.Workload("http", name, "requests/s", "request", false,
                        new WrkLoad(pin, log, script, "/plaintext", c, depth)));
            }
        }
        return out;
    }

    /**
     * Our http-server on each backend, then Netty's HTTP codec on one event loop (native epoll
     * where Netty has it, else NIO) and nginx with one worker.
     */
    static List<ServerLoad.Spec> httpServers(CompareOptions o, List<String> backends, List<String> timers, Path dir)
            throws IOException {
        List<ServerLoad.Spec> out = new ArrayList<>();
        for (String b : backends) {
            for (String t : timers) {
                out.add(ours("http", b, t));
            }
        }
        if (o.peers()) {
            out.add(nettyHttp(Epoll.isAvailable()));
            Path nginx = find("nginx");
            String why = missing(nginx, "nginx", "nginx-light");
            int port = why == null ? freePort() : 0;
            List<String> cmd = List.of();
            if (why == null) {
                // Absolute: nginx resolves -c and -e against its -p prefix, so a relative output
                // directory (the default, target/compare) would be doubled.
                Path prefix = dir.resolve("nginx").toAbsolutePath();
                Files.createDirectories(prefix.resolve("tmp"));
                Path conf = prefix.resolve("nginx.conf");
                Files.writeString(conf, nginxConfig(prefix, port), StandardCharsets.UTF_8);
                cmd = untilStdinEnds(List.of(nginx.toString(), "-p", prefix.toString(), "-c", conf.toString(), "-e",
                        prefix.resolve("error.log").toString()));
            }
            out.add(new ServerLoad.Spec("nginx", Row.Side.PEER, cmd, port, why));
        }
        return out;
    }

    /** The Netty HTTP peer on native epoll or NIO, named for its transport ("netty http epoll"). */
    static ServerLoad.Spec nettyHttp(boolean epoll) {
        String transport = epoll ? "epoll" : "nio";
        return new ServerLoad.Spec(NETTY_HTTP + " " + transport, Row.Side.PEER,
                Processes.javaCommand(NettyHttpServerMain.class, List.of("--transport", transport)), 0, null);
    }

    /**
     * nginx as TechEmpower's plaintext test runs it, cut to one worker on 127.0.0.1: the same body
     * as ours, no access log, keep-alive without a request limit, everything it writes under
     * {@code prefix}.
     */
    static String nginxConfig(Path prefix, int port) {
        return """
                # written by the compare command: one worker answering GET /plaintext like http-server
                worker_processes 1;
                daemon off;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events {
                    worker_connections 4096;
                }
                http {
                    access_log off;
                    client_body_temp_path %1$s/tmp;
                    keepalive_requests 100000000;
                    keepalive_timeout 60s;
                    server {
                        listen 127.0.0.1:%2$d backlog=4096;
                        location = /plaintext {
                            default_type text/plain;
                            return 200 "%3$s";
                        }
                    }
                }
                """.formatted(prefix.toAbsolutePath(), port, PLAINTEXT_BODY);
    }

    // --- Redis ---------------------------------------------------------------------------------

    /** redis-benchmark's default suite, as {@code -t} names it (PING as its multibulk form). */
    static final List<String> REDIS_DEFAULT_SUITE = List.of("ping_mbulk", "set", "get", "incr", "lpush", "rpush",
            "lpop", "rpop", "sadd", "hset", "spop", "mset");

    /**
     * PING, SET, GET (the full preset: redis-benchmark's whole default suite), each without and
     * with {@code -P 16}.
     */
    static List<ServerLoad.Workload> redis(CompareOptions o, boolean pin, Path logs) {
        List<ServerLoad.Workload> out = new ArrayList<>();
        if (!o.runs("redis")) {
            return out;
        }
        Path log = logs.resolve("redis-benchmark.log");
        List<String> tests = o.full() ? REDIS_DEFAULT_SUITE : List.of("ping_mbulk", "set", "get");
        for (int depth : List.of(1, REDIS_PIPELINE)) {
            for (String t : tests) {
                String name = "redis " + t.replace("_mbulk", "").toUpperCase(Locale.ROOT)
                        + (depth > 1 ? " -P " + depth : "") + ", " + REDIS_CLIENTS + " clients";
                out.add(new ServerLoad.Workload("redis", name, "requests/s", "request", false,
                        new RedisBenchmarkLoad(pin, log, t, REDIS_CLIENTS, depth)));
            }
        }
        return out;
    }

    /** Our resp-server on each backend, then redis-server with persistence off. */
    static List<ServerLoad.Spec> redisServers(CompareOptions o, List<String> backends, List<String> timers, Path dir)
            throws IOException {
        List<ServerLoad.Spec> out = new ArrayList<>();
        for (String b : backends) {
            for (String t : timers) {
                out.add(ours("resp", b, t));
            }
        }
        if (o.peers()) {
            Path redis = find("redis-server");
            String why = missing(redis, "redis-server", "redis-server");
            int port = why == null ? freePort() : 0;
            List<String> cmd = List.of();
            if (why == null) {
                Path work = dir.resolve("redis");
                Files.createDirectories(work);
                cmd = untilStdinEnds(redisCommand(redis.toString(), work, port));
            }
            out.add(new ServerLoad.Spec("redis-server", Row.Side.PEER, cmd, port, why));
        }
        return out;
    }

    /** redis-server on 127.0.0.1, no RDB snapshots or AOF, no I/O threads, its files in {@code dir}. */
    static List<String> redisCommand(String redisServer, Path dir, int port) {
        return List.of(redisServer, "--bind", "127.0.0.1", "--port", Integer.toString(port), "--save", "",
                "--appendonly", "no", "--io-threads", "1", "--daemonize", "no", "--protected-mode", "no",
                "--dir", dir.toAbsolutePath().toString(), "--logfile", "");
    }

    // --- both ----------------------------------------------------------------------------------

    /** A port free on 127.0.0.1 now, for a server that must be told its port. */
    static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static ServerLoad.Spec ours(String server, String backend, String timers) {
        return new ServerLoad.Spec("loop " + backend + "/" + timers, Row.Side.OURS,
                Processes.javaCommand(ProtocolServerMain.class, List.of("--server", server, "--backend", backend,
                        "--timers", timers)), 0, null);
    }

    /**
     * {@code cmd} under a shell that ends it when the shell's standard input ends: the runner stops
     * a server by closing its input, and a server that is not ours would otherwise outlive a
     * comparison that was killed.
     */
    static List<String> untilStdinEnds(List<String> cmd) {
        List<String> out = new ArrayList<>(List.of("sh", "-c",
                "\"$@\" </dev/null >&2 & child=$!; cat >/dev/null; kill -TERM $child 2>/dev/null; wait $child",
                "until-stdin-ends"));
        out.addAll(cmd);
        return out;
    }

    /**
     * Every contender of a workload family as a row that says why it did not run, for a family
     * whose load generator is missing.
     */
    static void skipAll(List<ServerLoad.Spec> specs, List<ServerLoad.Workload> workloads, String why, Results results) {
        for (ServerLoad.Workload w : workloads) {
            for (ServerLoad.Spec s : specs) {
                results.add(Row.unavailable(w.group(), w.name(), s.contender(), s.side(), w.unit(),
                        s.skip() != null ? s.skip() : why));
            }
        }
    }
}
