package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The echo load generator: one long-lived process, one thread, plain NIO on one {@link Selector},
 * the same program (and, once warm, the same compiled code) for every server measured. It obeys
 * commands on standard input, one per line, and answers each on standard output:
 *
 * <ul>
 *   <li>{@code RUN <host> <port> <pingpong|stream> <connections> <size> <inflight> <settle-ms> <burst>}:
 *       opens the connections; unless {@code burst} is 1, puts load on them for {@code settle-ms}
 *       (not measured); answers {@code READY}, the load still running;
 *   <li>{@code GO <ms>}: measures a window of {@code ms} from now, then stops sending; with
 *       {@code burst} 1 it also waits until every message in flight has come back, so the server
 *       is idle before and after. Answers
 *       {@code RESULT <messages> <bytes> <seconds> <client cpu s> <p50 ns> <p99 ns>};
 *   <li>{@code CLOSE}: closes the connections, answers {@code CLOSED}; {@code QUIT} or the end of
 *       input ends the process.
 * </ul>
 *
 * Patterns: <b>pingpong</b>, each connection sends {@code size} bytes and waits for all of them to
 * come back before sending again (every round trip goes into a {@link LatencyHistogram}); and
 * <b>stream</b>, each connection keeps {@code inflight} messages of {@code size} bytes in flight,
 * sending one more for each one echoed in full. A failure answers {@code ERROR <why>} and ends the
 * session (its connections closed); the process takes the next {@code RUN}.
 */
public final class LoadGenerator {
    /** Longest wait for the echoes still in flight at the end of a burst. */
    static final long DRAIN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Longest wait for a command while the load runs, so a lost parent cannot keep us busy forever. */
    static final long IDLE_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    private final LatencyHistogram histogram = new LatencyHistogram();
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(256 * 1024);
    private final List<Conn> conns = new ArrayList<>();
    private Selector selector;
    private ByteBuffer payload = ByteBuffer.allocateDirect(64 * 1024);
    private InetSocketAddress address;
    private boolean stream;
    private int size;
    private int inflight;
    private boolean sending;
    private long messages;

    /** One connection's state; the selector thread only. */
    private static final class Conn {
        SocketChannel channel;
        SelectionKey key;
        long pendingRead;  // bytes of the current message(s) received so far
        long toSend;       // bytes due to be written
        long outstanding;  // bytes sent and not yet echoed
        long sentAt;       // ping-pong: when the message in flight was sent
    }

    public static void main(String[] args) throws IOException {
        LoadGenerator g = new LoadGenerator();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = Processes.reader(System.in)) {
                String line;
                while ((line = in.readLine()) != null) {
                    g.command(line.trim());
                }
            } catch (IOException ignored) {
                // parent gone
            }
            g.command("QUIT");
        }, "commands");
        reader.setDaemon(true);
        reader.start();
        g.serve(System.out);
        System.exit(0);
    }

    void command(String line) {
        commands.add(line);
        Selector s = selector;
        if (s != null) {
            s.wakeup();
        }
    }

    void serve(PrintStream out) throws IOException {
        selector = Selector.open();
        try {
            while (true) {
                String cmd;
                try {
                    cmd = commands.take();
                } catch (InterruptedException e) {
                    return;
                }
                String[] f = cmd.split(" ");
                if (f[0].equals("QUIT")) {
                    return;
                }
                if (f[0].equals("CLOSE")) {
                    closeAll();
                    out.println("CLOSED");
                    out.flush();
                    continue;
                }
                if (!f[0].equals("RUN") || f.length != 9) {
                    out.println("ERROR unknown command: " + cmd);
                    out.flush();
                    continue;
                }
                try {
                    session(f, out);
                } catch (IOException | RuntimeException e) {
                    e.printStackTrace(); // to the log
                    closeAll();
                    out.println("ERROR " + String.valueOf(e).replace('\n', ' '));
                    out.flush();
                }
            }
        } finally {
            closeAll();
            selector.close();
        }
    }

    /** One RUN: connect, settle, wait for GO, measure, report. Leaves the connections open for CLOSE. */
    private void session(String[] f, PrintStream out) throws IOException {
        address = new InetSocketAddress(f[1], Integer.parseInt(f[2]));
        stream = switch (f[3]) {
            case "pingpong" -> false;
            case "stream" -> true;
            default -> throw new IllegalArgumentException("mode must be pingpong or stream, got " + f[3]);
        };
        int connections = Integer.parseInt(f[4]);
        size = Integer.parseInt(f[5]);
        inflight = stream ? Integer.parseInt(f[6]) : 1;
        long settle = Long.parseLong(f[7]) * 1_000_000;
        boolean burst = f[8].equals("1");
        if (payload.capacity() < (long) size * inflight) {
            payload = ByteBuffer.allocateDirect(size * inflight);
        }
        payload.clear();
        for (int i = 0; i < payload.capacity(); i++) {
            payload.put(i, (byte) ('a' + i % 26));
        }
        closeAll();
        for (int i = 0; i < connections; i++) {
            Conn c = new Conn();
            c.channel = SocketChannel.open();
            conns.add(c);
            c.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.channel.connect(address);
            c.channel.configureBlocking(false);
            c.key = c.channel.register(selector, SelectionKey.OP_READ, c);
        }
        messages = 0;
        if (!burst && settle > 0) {
            startSending();
            pump(System.nanoTime() + settle, false);
        }
        out.println("READY");
        out.flush();
        // keep the load running until GO
        String go = waitForGo();
        if (go == null) {
            throw new IOException("expected GO, the input ended");
        }
        if (go.equals("CLOSE")) { // the parent gave up on this window
            closeAll();
            out.println("CLOSED");
            out.flush();
            return;
        }
        long window = Long.parseLong(go.substring(3).trim()) * 1_000_000;
        if (!sending) {
            startSending();
        }
        histogram.reset();
        long startMessages = messages;
        long startCpu = cpuNanos();
        long start = System.nanoTime();
        pump(start + window, false);
        sending = false;
        if (burst) {
            pump(System.nanoTime() + DRAIN_LIMIT_NANOS, true);
        }
        long end = System.nanoTime();
        long msgs = messages - startMessages;
        out.printf(Locale.ROOT, "RESULT %d %d %.6f %.6f %.0f %.0f%n", msgs, msgs * size, (end - start) / 1e9,
                (cpuNanos() - startCpu) / 1e9, stream ? Double.NaN : histogram.percentile(50),
                stream ? Double.NaN : histogram.percentile(99));
        out.flush();
    }

    private String waitForGo() throws IOException {
        long limit = System.nanoTime() + IDLE_LIMIT_NANOS;
        while (System.nanoTime() < limit) {
            String cmd;
            try {
                cmd = sending ? commands.poll() : commands.poll(10, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return null;
            }
            if (cmd != null) {
                if (cmd.startsWith("GO ") || cmd.equals("CLOSE")) {
                    return cmd;
                }
                throw new IOException("expected GO, got " + cmd);
            }
            if (sending) {
                selector.select(this::ready, 10);
            }
        }
        throw new IOException("no GO within " + IDLE_LIMIT_NANOS / 1_000_000_000L + " s");
    }

    private void startSending() throws IOException {
        sending = true;
        long now = System.nanoTime();
        for (Conn c : conns) {
            c.toSend = (long) size * inflight;
            c.sentAt = now;
            write(c);
        }
    }

    /** Runs the selector until {@code deadline}, or, draining, until nothing is in flight. */
    private void pump(long deadline, boolean drain) throws IOException {
        while (true) {
            long now = System.nanoTime();
            if (now >= deadline) {
                if (drain) {
                    throw new IOException("echoes still in flight " + DRAIN_LIMIT_NANOS / 1_000_000_000L
                            + " s after the burst");
                }
                return;
            }
            if (drain && idle()) {
                return;
            }
            selector.select(this::ready, Math.max(1, Math.min(10, (deadline - now) / 1_000_000)));
        }
    }

    private boolean idle() {
        for (Conn c : conns) {
            if (c.outstanding > 0) {
                return false;
            }
        }
        return true;
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
        c.outstanding -= n;
        c.pendingRead += n;
        long done = c.pendingRead / size;
        if (done == 0) {
            return;
        }
        c.pendingRead -= done * size;
        messages += done;
        long now = System.nanoTime();
        if (!stream) {
            histogram.record(now - c.sentAt);
        }
        c.sentAt = now;
        if (sending) {
            c.toSend += done * size;
            write(c);
        }
    }

    private void write(Conn c) throws IOException {
        while (c.toSend > 0) {
            payload.clear().limit((int) Math.min(c.toSend, payload.capacity()));
            int n = c.channel.write(payload);
            if (n == 0) {
                break;
            }
            c.toSend -= n;
            c.outstanding += n;
        }
        int ops = c.toSend > 0 ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
        if (c.key != null && c.key.isValid() && c.key.interestOps() != ops) {
            c.key.interestOps(ops);
        }
    }

    private void closeAll() {
        for (Conn c : conns) {
            try {
                c.channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        conns.clear();
        sending = false;
        if (selector != null) {
            try {
                selector.selectNow(); // flush the cancelled keys
            } catch (IOException ignored) {
                // nothing registered any more
            }
        }
    }

    private static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }
}
