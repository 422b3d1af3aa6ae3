package dev.loop.bench.compare;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The parts of a server workload, the plumbing {@link ServerRunner} pairs and measures: a server
 * process ({@link Spec}), a load generator that puts one workload's load on it for a window
 * ({@link Load}) and tells what came back ({@link Window}), and the hooks the runner measures the
 * server with around that window ({@link Meter}: its CPU, its system calls). A new protocol
 * workload (TLS, UDP or Unix-socket echo, HTTP with {@code wrk}, Redis with
 * {@code redis-benchmark}) is a set of {@link Spec}s plus a {@link Load}; {@link CommandLoad} is
 * the base for load generators that are external programs run once per window.
 */
final class ServerLoad {
    private ServerLoad() {
    }

    /**
     * One server under test.
     *
     * @param contender its name in the table, e.g. "loop epoll/heap", "netty epoll", "nginx"
     * @param side      ours or a peer
     * @param command   how to start it; it is pinned to the server's CPU when pinning is on
     * @param port      0: the server picks a port and prints {@code LISTENING <port>} (or
     *                  {@code UNSUPPORTED <why>}) on its standard output; otherwise the port it was
     *                  told to use, ready once a TCP connection to it succeeds
     * @param skip      why it cannot run here (the row says so), or null
     */
    record Spec(String contender, Row.Side side, List<String> command, int port, String skip) {
    }

    /** Where a running server listens, and the processes whose CPU and system calls count as its own. */
    interface Endpoint {
        String host();

        int port();

        /** The server's process and its descendants (a master and its workers), as they are now. */
        List<Long> pids();
    }

    /**
     * Called by a {@link Load} around the measured part of a window, on its own thread: {@code begin}
     * just before the measured load starts, {@code end} just after it stopped.
     */
    interface Meter {
        Meter NONE = new Meter() {
            @Override
            public void begin() {
            }

            @Override
            public void end() {
            }
        };

        void begin() throws IOException;

        void end() throws IOException;
    }

    /**
     * What one window got done, as the load generator saw it.
     *
     * @param operations messages echoed, requests answered
     * @param bytes      payload bytes carried (0 where it means nothing)
     * @param seconds    the measured time
     * @param clientCpu  the load generator's CPU time in seconds, NaN if unknown
     * @param p50Micros  median latency, NaN where none is measured
     * @param p99Micros  99th percentile latency, NaN where none is measured
     */
    record Window(long operations, long bytes, double seconds, double clientCpu, double p50Micros, double p99Micros) {
    }

    /** Puts one workload's load on a server, one window at a time. */
    interface Load extends AutoCloseable {
        /**
         * One window against {@code server}: load for {@code settle} (not measured), then
         * {@code meter.begin()}, the measured window of {@code length}, {@code meter.end()}. With
         * {@code burst} there is no load before {@code begin} and nothing is left in flight at
         * {@code end} (every request answered), so what the meter sees is this window's work alone:
         * that is how system calls are counted.
         *
         * @throws IOException when the server or the load generator failed; the message says which
         */
        Window run(Endpoint server, Duration settle, Duration length, boolean burst, Meter meter) throws IOException;

        /** Ends a load generator that outlives its windows; several workloads may share one. */
        @Override
        default void close() {
        }
    }

    /**
     * One server workload: what it is called, what its score counts, and its load.
     *
     * @param group  the workload family, as {@code --workloads} names it
     * @param name   e.g. "echo ping-pong 64 B, 10 conns"
     * @param unit   what the score counts per second: "msgs/s", "MB/s", "requests/s"
     * @param perOp  what one operation is, for the per-operation columns: "msg", "request"
     * @param bytes  the score is payload MB/s rather than operations per second
     * @param load   how the load is put on a server
     */
    record Workload(String group, String name, String unit, String perOp, boolean bytes, Load load) {
        double score(Window w) {
            return bytes ? w.bytes() / w.seconds() / 1e6 : w.operations() / w.seconds();
        }
    }
}
