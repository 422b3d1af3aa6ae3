package dev.loop.examples.http;

import dev.loop.bench.ServerPath;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
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
 * The http-server's parse-and-answer path in steady state, without sockets: {@code GET /plaintext}
 * on a keep-alive connection, one request per read or 16 pipelined in one read (TechEmpower's
 * plaintext test), through the server's own connection code ({@link HttpConnection}, as
 * {@link HttpServer} wires it) on one of our loops. One operation is one request answered; run it
 * with {@code -prof gc} for the bytes allocated per request, which should be 0.
 *
 * <p>It lives in the server's package because the connection code is package-private: the
 * benchmark uses it exactly as the server does, with nothing opened up for it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
public class HttpPathBenchmark {
    /** What wrk sends for TechEmpower's plaintext test, less the host's port. */
    static final byte[] REQUEST = ("GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\n"
            + "Connection: keep-alive\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    @State(Scope.Benchmark)
    public static class Path {
        /** Requests per read: 1 (keep-alive, one at a time) or 16 (pipelined). */
        @Param({"1", "16"})
        public int depth;

        ServerPath path;

        @Setup(Level.Trial)
        public void open() {
            path = new ServerPath(REQUEST, depth, c -> {
                HttpLoopState state = new HttpLoopState(c.loop(), HttpLimits.defaults(), null, new LongAdder());
                new HttpConnection(c, state).startPush();
            });
            check(path.answersOfOneRound());
            path.requireOneWritePerRead("answers");
        }

        /** Every request of the round got its plaintext answer, and nothing else was written. */
        private static void check(byte[] answers) {
            String text = new String(answers, StandardCharsets.US_ASCII);
            int n = 0;
            for (int at = text.indexOf("HTTP/1.1 200 OK\r\n"); at >= 0; at = text.indexOf("HTTP/1.1 200 OK\r\n", at + 1)) {
                n++;
            }
            int bodies = text.split("Hello, World!", -1).length - 1;
            if (n != ServerPath.REQUESTS || bodies != ServerPath.REQUESTS) {
                throw new IllegalStateException(n + " answers and " + bodies + " bodies to " + ServerPath.REQUESTS
                        + " requests; the first: " + text.substring(0, Math.min(300, text.length())));
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            path.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(ServerPath.REQUESTS)
    public long plaintext(Path p) {
        return p.path.round();
    }
}
