package dev.loop.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * TLS echo under JMH, ours on each backend against Netty's {@code SslHandler} (the servers of
 * {@link TlsEchoServers}), mainly for allocation: run with {@code -prof gc}. JMH runs the servers
 * one after the other, so on a shared machine their throughputs are best compared with
 * {@link TlsEchoRounds}, which interleaves them.
 *
 * <ul>
 *   <li>{@code pingPong}: one message of {@code size} bytes out and back on one connection (64 B is
 *       one small record each way; 16 KiB one full record);
 *   <li>{@code handshake}: connect, full handshake (the client's session is invalidated so nothing
 *       is resumed), close.
 * </ul>
 * The serving thread's own allocation is printed after each iteration as {@code server-alloc
 * B/op}: it leaves out the client, which {@code -prof gc}'s {@code gc.alloc.rate.norm} counts too.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class TlsEchoBenchmark {
    @Param({"loop-select", "loop-epoll", "loop-io_uring", "netty-nio", "netty-epoll"})
    public String server;

    @Param({"64", "16384"})
    public int size;

    private TlsEchoServers.Contexts contexts;
    private TlsEchoServers.Running running;
    private SSLSocket client;
    private OutputStream out;
    private DataInputStream in;
    private byte[] message;
    private byte[] echo;
    private long ops;
    private long allocAtStart;

    @Setup(Level.Trial)
    public void start() throws Exception {
        contexts = TlsEchoServers.Contexts.make();
        running = TlsEchoServers.start(server, contexts.server());
        message = new byte[size];
        echo = new byte[size];
        for (int i = 0; i < size; i++) {
            message[i] = (byte) i;
        }
        client = contexts.connect(running.address());
        out = client.getOutputStream();
        in = new DataInputStream(client.getInputStream());
    }

    @Setup(Level.Iteration)
    public void mark() {
        ops = 0;
        allocAtStart = running.allocated();
    }

    @TearDown(Level.Iteration)
    public void report() {
        long bytes = running.allocated() - allocAtStart;
        System.out.printf("server-alloc %.1f B/op over %d ops%n", ops == 0 ? 0.0 : (double) bytes / ops, ops);
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        client.close();
        running.close();
    }

    @Benchmark
    public byte pingPong() throws IOException {
        out.write(message);
        out.flush();
        in.readFully(echo);
        ops++;
        return echo[size - 1];
    }

    @Benchmark
    public boolean handshake() throws IOException {
        SSLSocket s = contexts.connect(running.address());
        s.getSession().invalidate(); // the next one is a full handshake, not a resumption
        s.close();
        ops++;
        return s.isClosed();
    }
}
