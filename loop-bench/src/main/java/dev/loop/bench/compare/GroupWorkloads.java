package dev.loop.bench.compare;

import io.netty.channel.epoll.Epoll;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code LoopGroup} against one loop ({@code --workloads group}, and {@code --full}): our
 * http-server and resp-server on 1 and on 2 loops, and Netty's HTTP codec on 1 and on 2 event
 * loops, in turns in the same rounds, under HTTP plaintext (plain and pipelined) at 100
 * connections and Redis SET (plain and {@code -P 16}) with 50 clients. Nothing is pinned: two
 * loops pinned to one CPU could not scale at all, so servers and load generators share both
 * cores, and the rows show what the load generator took of them (the "cli" CPU column) beside
 * the server's CPU per request. The 2-loop rows say their score and CPU per request over the
 * 1-loop row's, round by round.
 */
final class GroupWorkloads {
    static final String GROUP = "group";
    static final String ONE = ", 1 loop";
    static final String TWO = ", 2 loops";
    static final String NETTY_ONE = ", 1 event loop";
    static final String NETTY_TWO = ", 2 event loops";
    static final int CONNECTIONS = 100;

    private GroupWorkloads() {
    }

    static List<ServerLoad.Workload> http(CompareOptions o, Path logs) throws java.io.IOException {
        List<ServerLoad.Workload> out = new ArrayList<>();
        if (!o.runs(GROUP)) {
            return out;
        }
        for (int depth : List.of(1, ProtocolWorkloads.HTTP_PIPELINE)) {
            out.add(new ServerLoad.Workload(GROUP, "group: http plaintext" + (depth > 1 ? " pipelined x" + depth : "")
                    + ", " + EchoWorkloads.label(CONNECTIONS), "requests/s", "request", false,
                    new WrkLoad(false, logs.resolve("wrk.log"), logs.resolve("wrk-depth-" + depth + ".lua"),
                            "/plaintext", CONNECTIONS, depth)));
        }
        return out;
    }

    static List<ServerLoad.Workload> redis(CompareOptions o, Path logs) {
        List<ServerLoad.Workload> out = new ArrayList<>();
        if (!o.runs(GROUP)) {
            return out;
        }
        for (int depth : List.of(1, ProtocolWorkloads.REDIS_PIPELINE)) {
            out.add(new ServerLoad.Workload(GROUP, "group: redis SET" + (depth > 1 ? " -P " + depth : "") + ", "
                    + ProtocolWorkloads.REDIS_CLIENTS + " clients", "requests/s", "request", false,
                    new RedisBenchmarkLoad(false, logs.resolve("redis-benchmark.log"), "set",
                            ProtocolWorkloads.REDIS_CLIENTS, depth)));
        }
        return out;
    }

    /** Our http-server on 1 and 2 loops, then Netty's HTTP codec on 1 and 2 event loops. */
    static List<ServerLoad.Spec> httpServers(CompareOptions o, String backend, String timers) {
        List<ServerLoad.Spec> out = new ArrayList<>(ours("http", backend, timers));
        if (o.peers()) {
            boolean epoll = Epoll.isAvailable();
            String name = ProtocolWorkloads.NETTY_HTTP + " " + (epoll ? "epoll" : "nio");
            for (int n : List.of(1, 2)) {
                out.add(new ServerLoad.Spec(name + (n == 1 ? NETTY_ONE : NETTY_TWO), Row.Side.PEER,
                        Processes.javaCommand(NettyHttpServerMain.class, List.of("--transport", epoll ? "epoll" : "nio",
                                "--threads", Integer.toString(n))), 0, null));
            }
        }
        return out;
    }

    /** Our resp-server on 1 and 2 loops (the keys stay on the first loop; the others parse and write). */
    static List<ServerLoad.Spec> redisServers(String backend, String timers) {
        return ours("resp", backend, timers);
    }

    private static List<ServerLoad.Spec> ours(String server, String backend, String timers) {
        List<ServerLoad.Spec> out = new ArrayList<>();
        for (int n : List.of(1, 2)) {
            out.add(new ServerLoad.Spec("loop " + backend + "/" + timers + (n == 1 ? ONE : TWO), Row.Side.OURS,
                    Processes.javaCommand(ProtocolServerMain.class, List.of("--server", server, "--backend", backend,
                            "--timers", timers, "--loops", Integer.toString(n))), 0, null));
        }
        return out;
    }

    /** Notes on the 2-loop rows: score and CPU per request over the 1-loop row's, ours and Netty's. */
    static void annotate(Results results) {
        Comparisons.annotate(results, GROUP, TWO, ONE);
        Comparisons.annotate(results, GROUP, NETTY_TWO, NETTY_ONE);
    }
}
