package dev.loop.bench.compare;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The echo load generator: one process, one thread, plain NIO on one {@link Selector}, the same
 * program for every server measured. It opens the connections, then drives one of two patterns:
 *
 * <ul>
 *   <li><b>pingpong</b>: each connection sends {@code size} bytes and waits for all of them to
 *       come back before sending again; the round trip of every message goes into a
 *       {@link LatencyHistogram}.
 *   <li><b>stream</b>: each connection keeps {@code inflight} messages of {@code size} bytes in
 *       flight, sending one more for each one echoed in full.
 * </ul>
 *
 * After the warm-up it measures {@code iterations} windows of equal length and prints one line per
 * window: {@code ITER <messages> <bytes> <seconds> <client cpu s> <server cpu s> <p50 ns> <p99 ns>}
 * (CPU from this process's CPU time and, on Linux, the server's {@code /proc/<pid>/stat}), then
 * {@code DONE}. A failure prints {@code ERROR <why>} and exits with status 1.
 *
 * <pre>LoadGenerator --port P [--host H] --mode pingpong|stream --connections N --size B
 *     [--inflight K] --warmup-ms W --iterations I --iteration-ms D [--server-pid PID]</pre>
 */
public final class LoadGenerator {
    final InetSocketAddress address;
    final boolean stream;
    final int connections;
    final int size;
    final int inflight;
    final long warmupNanos;
    final int iterations;
    final long iterationNanos;
    final long serverPid;

    private final LatencyHistogram histogram = new LatencyHistogram();
    private final ByteBuffer payload;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(256 * 1024);
    private long messages;
    private boolean measuring;

    /** One connection's state; the selector thread only. */
    private static final class Conn {
        SocketChannel channel;
        SelectionKey key;
        long pendingRead;  // bytes of the current message(s) received so far
        long toSend;       // bytes due to be written
        long sentAt;       // ping-pong: when the message in flight was sent
    }

    LoadGenerator(InetSocketAddress address, boolean stream, int connections, int size, int inflight, long warmupNanos,
                  int iterations, long iterationNanos, long serverPid) {
        this.address = address;
        this.stream = stream;
        this.connections = connections;
        this.size = size;
        this.inflight = stream ? inflight : 1;
        this.warmupNanos = warmupNanos;
        this.iterations = iterations;
        this.iterationNanos = iterationNanos;
        this.serverPid = serverPid;
        payload = ByteBuffer.allocateDirect(Math.max(64 * 1024, size * this.inflight));
        for (int i = 0; i < payload.capacity(); i++) {
            payload.put(i, (byte) ('a' + i % 26));
        }
    }

    public static void main(String[] args) {
        try {
            String host = "127.0.0.1";
            int port = -1;
            String mode = "pingpong";
            int connections = 1;
            int size = 64;
            int inflight = 16;
            long warmupMs = 1000;
            int iterations = 3;
            long iterationMs = 1000;
            long serverPid = -1;
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : "";
                switch (args[i]) {
                    case "--host" -> host = v;
                    case "--port" -> port = Integer.parseInt(v);
                    case "--mode" -> mode = v;
                    case "--connections" -> connections = Integer.parseInt(v);
                    case "--size" -> size = Integer.parseInt(v);
                    case "--inflight" -> inflight = Integer.parseInt(v);
                    case "--warmup-ms" -> warmupMs = Long.parseLong(v);
                    case "--iterations" -> iterations = Integer.parseInt(v);
                    case "--iteration-ms" -> iterationMs = Long.parseLong(v);
                    case "--server-pid" -> serverPid = Long.parseLong(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
                i++;
            }
            if (port < 0 || !(mode.equals("pingpong") || mode.equals("stream"))) {
                throw new IllegalArgumentException("need --port and --mode pingpong|stream");
            }
            LoadGenerator g = new LoadGenerator(new InetSocketAddress(host, port), mode.equals("stream"), connections,
                    size, inflight, warmupMs * 1_000_000, iterations, iterationMs * 1_000_000, serverPid);
            g.run(System.out);
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("ERROR " + String.valueOf(e).replace('\n', ' '));
            System.out.flush();
            System.exit(1);
        }
    }

    void run(PrintStream out) throws IOException {
        List<Conn> conns = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < connections; i++) {
                Conn c = new Conn();
                c.channel = SocketChannel.open();
                c.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.channel.connect(address);
                c.channel.configureBlocking(false);
                c.key = c.channel.register(selector, SelectionKey.OP_READ, c);
                conns.add(c);
            }
            out.println("CONNECTED " + connections);
            long now = System.nanoTime();
            for (Conn c : conns) {
                c.toSend = (long) size * inflight;
                c.sentAt = now;
                write(c);
            }
            long phaseEnd = now + warmupNanos;
            int iteration = 0; // 0 = warm-up
            long startMessages = 0;
            long startCpu = cpuNanos();
            long startServer = serverCpuNanos();
            long startTime = now;
            while (iteration <= iterations) {
                long wait = Math.max(1, (phaseEnd - System.nanoTime()) / 1_000_000);
                selector.select(this::ready, Math.min(wait, 100));
                now = System.nanoTime();
                if (now >= phaseEnd) {
                    if (iteration > 0) {
                        long msgs = messages - startMessages;
                        out.printf(Locale.ROOT, "ITER %d %d %.6f %.6f %.6f %.0f %.0f%n", msgs, msgs * size,
                                (now - startTime) / 1e9, (cpuNanos() - startCpu) / 1e9,
                                serverPid > 0 ? (serverCpuNanos() - startServer) / 1e9 : Double.NaN,
                                stream ? Double.NaN : histogram.percentile(50),
                                stream ? Double.NaN : histogram.percentile(99));
                        out.flush();
                    }
                    iteration++;
                    histogram.reset();
                    measuring = true;
                    startMessages = messages;
                    startCpu = cpuNanos();
                    startServer = serverCpuNanos();
                    startTime = now;
                    phaseEnd = now + iterationNanos;
                }
            }
            out.println("DONE");
            out.flush();
        } finally {
            for (Conn c : conns) {
                try {
                    c.channel.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }

    private void ready(SelectionKey key) {
        Conn c = (Conn) key.attachment();
        try {
            if (key.isWritable()) {
                write(c);
            }
            if (key.isReadable()) {
                read(c);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("connection to " + address + " failed", e);
        }
    }

    private void read(Conn c) throws IOException {
        readBuffer.clear();
        int n = c.channel.read(readBuffer);
        if (n < 0) {
            throw new IOException("the server closed a connection");
        }
        c.pendingRead += n;
        long done = c.pendingRead / size;
        if (done == 0) {
            return;
        }
        c.pendingRead -= done * size;
        messages += done;
        long now = System.nanoTime();
        if (!stream && measuring) {
            histogram.record(now - c.sentAt);
        }
        c.sentAt = now;
        c.toSend += done * size;
        write(c);
    }

    private void write(Conn c) throws IOException {
        while (c.toSend > 0) {
            payload.clear().limit((int) Math.min(c.toSend, payload.capacity()));
            int n = c.channel.write(payload);
            if (n == 0) {
                break;
            }
            c.toSend -= n;
        }
        int ops = c.toSend > 0 ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
        if (c.key != null && c.key.interestOps() != ops) {
            c.key.interestOps(ops);
        }
    }

    private static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    /** The server's user + system CPU time from /proc (Linux, clock ticks of 10 ms); 0 elsewhere. */
    private long serverCpuNanos() {
        return serverPid > 0 ? procCpuNanos(serverPid) : 0;
    }

    static long procCpuNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
            return ticks * 10_000_000L;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
