package dev.loop.bench.compare;

import dev.loop.bench.dgram.EchoServers;
import java.util.ArrayList;
import java.util.List;

/**
 * The UDP echo workload: ours on every backend and the peers (Netty's NIO and epoll datagram
 * channels, the JDK's blocking {@code DatagramChannel}), each a {@link EchoServers} process on one
 * thread, under {@link UdpLoad}: 4 peers keeping 8 datagrams of 64 bytes in flight each.
 */
final class UdpWorkloads {
    static final int PEERS = 4;
    static final int WINDOW = 8;
    static final int SIZE = 64;

    private UdpWorkloads() {
    }

    static List<ServerLoad.Workload> workloads(CompareOptions o) {
        if (!o.runs("udp")) {
            return List.of();
        }
        return List.of(new ServerLoad.Workload("udp", "udp echo 64 B, " + PEERS + " peers x " + WINDOW + " in flight",
                "msgs/s", "msg", false, new UdpLoad(PEERS, WINDOW, SIZE)));
    }

    /** Ours on each backend (heap timers: no timer is involved), then the peers. */
    static List<ServerLoad.Spec> servers(CompareOptions o, List<String> backends, String epollWhy) {
        List<ServerLoad.Spec> out = new ArrayList<>();
        for (String b : backends) {
            out.add(spec("loop " + b + "/heap", Row.Side.OURS, "loop-" + b, null));
        }
        if (o.peers()) {
            out.add(spec("netty nio", Row.Side.PEER, "netty-nio", null));
            out.add(spec("netty epoll", Row.Side.PEER, "netty-epoll", epollWhy));
            out.add(spec("jdk DatagramChannel", Row.Side.PEER, "jdk", null));
        }
        return out;
    }

    private static ServerLoad.Spec spec(String contender, Row.Side side, String impl, String skip) {
        return new ServerLoad.Spec(contender, side, Processes.javaCommand(EchoServers.class, List.of(impl, "udp")), 0,
                skip);
    }
}
