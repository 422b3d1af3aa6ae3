package dev.loop.bench.compare;

import java.util.List;

/** A small, hand-made set of results the formatting tests share. */
final class Fixtures {
    private Fixtures() {
    }

    static Results sample() {
        Results r = new Results();
        r.meta("command", "compare --workloads callsoon,echo");
        r.meta("machine", "test <machine> & \"co\"");
        r.add(Row.of("callsoon", "callSoon in-loop", "loop select/heap", Row.Side.OURS, "callbacks/s",
                List.of(180e6, 200e6, 190e6)));
        r.add(Row.of("callsoon", "callSoon in-loop", "netty nio", Row.Side.PEER, "callbacks/s",
                List.of(40e6, 50e6, 45e6)));
        r.add(Row.of("callsoon", "callSoon in-loop", "netty epoll", Row.Side.PEER, "callbacks/s",
                List.of(60e6, 60e6)));
        r.add(Row.unavailable("echo", "echo ping-pong 64 B, 1 conn", "loop epoll/heap", Row.Side.OURS, "msgs/s",
                "n/a (no sockets)"));
        r.add(new Row("echo", "echo ping-pong 64 B, 1 conn", "loop select/heap", Row.Side.OURS, "msgs/s",
                List.of(30_000.0, 34_000.0, 32_000.0), 27.5, 48.0, 0.7, 0.9, null));
        r.add(new Row("echo", "echo ping-pong 64 B, 1 conn", "python uvloop", Row.Side.PEER, "msgs/s",
                List.of(40_000.0), 21.0, 33.0, 0.8, 0.6, null));
        return r;
    }
}
