package dev.loop.examples.resp;

import dev.loop.bench.ServerPath;
import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
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
 * The resp-server's parse-and-answer path in steady state, without sockets: the requests
 * redis-benchmark sends for {@code -t ping,set,get} (its default key and 3-byte value), one per
 * read or 16 pipelined in one read ({@code -P 16}), through the server's own connection code
 * ({@link RespConnection} and {@link Commands}, wired as {@link RespServer} wires one loop). One
 * operation is one command answered; run it with {@code -prof gc} for the bytes allocated per
 * command.
 *
 * <p>It lives in the server's package because the connection code is package-private: the
 * benchmark uses it exactly as the server does, with nothing opened up for it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
public class RespPathBenchmark {
    /** redis-benchmark's requests, and the reply each one gets once the key is set. */
    public enum Command {
        PING_INLINE("PING\r\n", "+PONG\r\n"),
        PING_MBULK("*1\r\n$4\r\nPING\r\n", "+PONG\r\n"),
        SET("*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n$3\r\nxxx\r\n", "+OK\r\n"),
        GET("*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n", "$3\r\nxxx\r\n");

        final byte[] request;
        final String reply;

        Command(String request, String reply) {
            this.request = request.getBytes(StandardCharsets.US_ASCII);
            this.reply = reply;
        }
    }

    @State(Scope.Benchmark)
    public static class Path {
        @Param({"PING_INLINE", "PING_MBULK", "SET", "GET"})
        public Command command;

        /** Commands per read: 1 (one at a time) or 16 ({@code -P 16}). */
        @Param({"1", "16"})
        public int depth;

        ServerPath path;

        @Setup(Level.Trial)
        public void open() {
            RespServer.Config config = RespServer.Config.defaults();
            path = new ServerPath(command.request, depth, c -> {
                Keyspace[] databases = new Keyspace[config.databases()];
                for (int i = 0; i < databases.length; i++) {
                    databases[i] = new Keyspace(c.loop());
                }
                RespConnection.Data data = new RespConnection.Data(c.loop(),
                        new Commands(databases, Map.of("save", "", "appendonly", "no")), new LongAdder(), new AtomicLong());
                RespConnection conn = new RespConnection(c, data, new OutputBuffer(64 * 1024),
                        new RespParser(config.maxArgs(), config.maxBulk(), config.maxCommand()));
                conn.start();
                if (command == Command.GET) {
                    // the key GET reads is SET first, as redis-benchmark's suite runs SET before GET
                    c.receive(java.nio.ByteBuffer.wrap(Command.SET.request));
                }
            });
            check(path.answersOfOneRound(), command.reply);
            path.requireOneWritePerRead("replies");
        }

        /** Every command of the round got its reply, and nothing else was written. */
        private static void check(byte[] replies, String reply) {
            String want = reply.repeat(ServerPath.REQUESTS);
            String got = new String(replies, StandardCharsets.US_ASCII);
            if (!got.equals(want)) {
                throw new IllegalStateException("the replies to " + ServerPath.REQUESTS + " commands are not "
                        + ServerPath.REQUESTS + " x " + reply.strip() + ": " + got.substring(0, Math.min(200, got.length())));
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            path.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(ServerPath.REQUESTS)
    public long command(Path p) {
        return p.path.round();
    }
}
