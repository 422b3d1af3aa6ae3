package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the always-on loop metrics cost: echo round trips of 64 bytes over loopback TCP, client and
 * server on one loop that the benchmark thread runs, so the loop thread is busy all the time and a
 * round trip's time is its CPU time. {@code metrics=false} opens the loop with
 * {@code -Dloop.metrics=false}. Each round trip is two reads, two writes and at least two polls.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(MetricsOverheadBenchmark.ROUND_TRIPS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class MetricsOverheadBenchmark {
    static final int ROUND_TRIPS = 1_000;

    @State(Scope.Thread)
    public static class Echo {
        @Param({"epoll"})
        public String backend;

        @Param({"true", "false"})
        public String metrics;

        Loop loop;
        Server server;
        Connection client;
        final ByteBuffer message = ByteBuffer.allocateDirect(64);
        final Pinger pinger = new Pinger();

        @Setup(Level.Trial)
        public void open() throws IOException {
            System.setProperty("loop.metrics", metrics); // read as the loop opens
            loop = Loops.open(LoopOptions.defaults().withBackend(backend));
            server = Net.listen(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), ServerOptions.defaults(),
                    c -> c.setHandler((conn, data) -> conn.write(data)));
            client = loop.runUntilComplete(Net.connect(loop, (InetSocketAddress) server.localSocketAddress()));
            client.setHandler(pinger);
        }

        @TearDown(Level.Trial)
        public void close() {
            loop.close();
        }

        /** Sends the next message when the previous one is back in full; completes after {@link #ROUND_TRIPS}. */
        final class Pinger implements ConnectionHandler {
            int left;
            int pending;
            Promise<Void> done;

            void start() {
                done = loop.newPromise();
                left = ROUND_TRIPS;
                send();
            }

            private void send() {
                pending = message.capacity();
                client.write(message.clear());
            }

            @Override
            public void onData(Connection c, ByteBuffer data) {
                pending -= data.remaining();
                data.position(data.limit());
                if (pending == 0) {
                    if (--left == 0) {
                        done.complete(null);
                    } else {
                        send();
                    }
                }
            }
        }
    }

    @Benchmark
    public void echoRoundTrips(Echo e) {
        e.pinger.start();
        e.loop.runUntilComplete(e.pinger.done);
    }
}
