package dev.loop.bench.compare;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The echo workloads: which servers (ours on every backend, Netty, the JDK, Python) and which
 * loads (ping-pong and streaming at each connection count), for {@link ServerRunner}. Servers are
 * {@link EchoServerMain} or {@code echo_server.py}; the load is {@link EchoLoad} from one shared
 * {@link LoadGenerator} process.
 */
final class EchoWorkloads {
    static final int PING_SIZE = 64;
    static final int STREAM_SIZE = 4096;
    static final int STREAM_INFLIGHT = 16;

    private EchoWorkloads() {
    }

    static String label(int connections) {
        return connections + (connections == 1 ? " conn" : " conns");
    }

    /** The chosen echo workloads, all driven by {@code generator}. */
    static List<ServerLoad.Workload> workloads(CompareOptions o, EchoLoad.Generator generator) {
        List<ServerLoad.Workload> out = new ArrayList<>();
        if (o.runs("echo")) {
            for (int c : o.connections()) {
                out.add(new ServerLoad.Workload("echo", "echo ping-pong 64 B, " + label(c), "msgs/s", "msg", false,
                        new EchoLoad(generator, false, c, PING_SIZE, 1)));
            }
        }
        if (o.runs("stream")) {
            for (int c : o.streamConnections()) {
                out.add(new ServerLoad.Workload("stream", "echo stream 4 KiB x16, " + label(c), "MB/s", "msg", true,
                        new EchoLoad(generator, true, c, STREAM_SIZE, STREAM_INFLIGHT)));
            }
        }
        return out;
    }

    /**
     * The servers: ours for each backend x timer strategy, then the peers (Netty NIO and epoll,
     * the JDK's virtual threads, asyncio and uvloop), each with the reason it cannot run, if any.
     */
    static List<ServerLoad.Spec> servers(CompareOptions o, List<String> backends, List<String> timers, String epollWhy,
                                        Path scripts) {
        List<ServerLoad.Spec> out = new ArrayList<>();
        for (String b : backends) {
            for (String t : timers) {
                out.add(java("loop " + b + "/" + t, Row.Side.OURS, "loop-" + b, t, null));
            }
        }
        if (o.peers()) {
            out.add(java("netty nio", Row.Side.PEER, "netty-nio", null, null));
            out.add(java("netty epoll", Row.Side.PEER, "netty-epoll", null, epollWhy));
            out.add(java("netty io_uring", Row.Side.PEER, "netty-io_uring", null, Compare.ioUringUnavailable()));
            out.add(java("jdk virtual threads", Row.Side.PEER, "jdk-vthreads", null, null));
            for (String loop : PythonPeers.LOOPS) {
                out.add(new ServerLoad.Spec("python " + loop, Row.Side.PEER, List.of(o.python(),
                        scripts.resolve("echo_server.py").toString(), "--loop", loop), 0,
                        PythonPeers.unavailable(o.python(), loop)));
            }
        }
        return out;
    }

    private static ServerLoad.Spec java(String contender, Row.Side side, String impl, String timers, String skip) {
        List<String> args = new ArrayList<>(List.of("--impl", impl));
        if (timers != null) {
            args.addAll(List.of("--timers", timers));
        }
        return new ServerLoad.Spec(contender, side, Processes.javaCommand(EchoServerMain.class, args), 0, skip);
    }
}
