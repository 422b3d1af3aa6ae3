package dev.loop.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What traffic costs an echo server in resident memory, measured from outside: a {@link FaultServer}
 * in a child JVM, and rounds of blocking clients from this process that connect, each echo a
 * message a number of times, and close. The child's RSS is read from {@code /proc} before the
 * first round, while each round's connections are open, and once they are closed. Used by
 * {@link TrafficMemoryContract}, and runnable on its own for the full-size figures:
 *
 * <pre>
 * java [the suite's JVM flags] -cp [its class path] dev.loop.testkit.TrafficMemory BACKEND CONNECTIONS ROUNDS ECHOES [MESSAGE_BYTES]
 * </pre>
 */
public final class TrafficMemory {
    static final int MESSAGE = 1024;
    /**
     * How long idle or closed connections may take to give their memory back: io_uring's idle
     * sweep takes one to two seconds to find a socket idle and one more to give the memory back.
     */
    static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(4);
    /**
     * The child's heap is fixed and resident from the start, so RSS beyond the baseline is memory
     * outside it; its collector is the serial one, whose own native memory does not grow with the
     * heap's use: G1's did, by steps of 7 to 18 MiB at about the third round (every backend),
     * which hid what a backend kept (measured, 3,000 connections echoing 17 KiB: select after
     * close +11/+12/+21 MiB under G1, +4/+5/+7 under Serial; io_uring keeping its freed buffers
     * +31/+33/+35 under Serial).
     */
    static final List<String> CHILD_FLAGS = List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch",
            "-XX:MaxDirectMemorySize=4g", "-XX:+UseSerialGC");
    /** A first round before the baseline: classes loaded and hot paths compiled. */
    static final int WARM_UP = 500;

    private TrafficMemory() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: TrafficMemory BACKEND CONNECTIONS ROUNDS ECHOES [MESSAGE_BYTES]");
            System.exit(2);
        }
        int connections = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int echoes = Integer.parseInt(args[3]);
        int message = args.length == 5 ? Integer.parseInt(args[4]) : MESSAGE;
        try (Server server = Server.start(args[0])) {
            server.round(WARM_UP, 1, Long.MAX_VALUE, 0);
            server.settled();
            long base = server.rssKiB();
            System.out.printf("[%s] %d connections x %d echoes of %d bytes, %d rounds; RSS before %.1f MiB, %d descriptors%n",
                    args[0], connections, echoes, message, rounds, base / 1024.0, server.fds());
            for (int r = 1; r <= rounds; r++) {
                // the whole settling times: what is given back by then
                Round round = server.round(connections, echoes, message, 0, 0);
                System.out.printf("[%s] round %d: RSS open %.1f MiB (%.2f KiB per connection), open and idle %.1f MiB"
                                + " (%.2f KiB per connection), after close %.1f MiB (%+.1f MiB from before);"
                                + " descriptors %d; %d ms%n", args[0], r, round.openKiB / 1024.0,
                        round.perConnectionKiB(connections), round.idleKiB / 1024.0,
                        round.idlePerConnectionKiB(connections), round.closedKiB / 1024.0,
                        (round.closedKiB - base) / 1024.0, round.fds, round.millis);
            }
        }
    }

    /**
     * One round's figures, RSS in KiB: before it, with its connections open just after their last
     * echo, with them open and idle a while later, and after they closed. What a connection costs
     * is taken from the figure just before the round, so that what an earlier round left (the
     * JVM's own, on every backend) is not counted again.
     */
    record Round(long beforeKiB, long openKiB, long idleKiB, long closedKiB, long fds, long millis) {
        double perConnectionKiB(int connections) {
            return (openKiB - beforeKiB) / (double) connections;
        }

        double idlePerConnectionKiB(int connections) {
            return (idleKiB - beforeKiB) / (double) connections;
        }
    }

    /** The echo server in its child JVM. */
    static final class Server implements AutoCloseable {
        final Process process;
        final int port;
        final List<String> stderr;
        /** What the child holds when idle; taken again after a warm-up round ({@link #settled()}). */
        long baselineFds;
        /**
         * How long a round waits after its close before its RSS may count as settled: so that the
         * next round starts from what the server gives back, not from memory it still holds and
         * will reuse, which would hide what that round's connections cost.
         */
        long closeSettleNanos;

        private Server(Process process, int port, List<String> stderr) throws IOException {
            this.process = process;
            this.port = port;
            this.stderr = stderr;
            this.baselineFds = fds();
        }

        /** Starts {@link FaultServer} on {@code backend} with this JVM's executable, flags and class path. */
        static Server start(String backend) throws IOException, InterruptedException {
            String java = ProcessHandle.current().info().command()
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            List<String> cmd = new ArrayList<>(List.of(java));
            for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                // a collector chosen for this JVM would conflict with the child's
                if (!flag.startsWith("-agentlib:jdwp") && !flag.startsWith("-javaagent")
                        && !flag.matches("-XX:[+-]Use\\w*GC")) {
                    cmd.add(flag);
                }
            }
            // The heap is fixed and resident from the start (see CHILD_FLAGS): without this, a heap
            // growing into its default limit hides what the backend keeps. Direct memory may grow
            // as far as on a large default heap, where no limit forces the collection that would
            // free the JDK's direct buffers.
            cmd.addAll(CHILD_FLAGS);
            cmd.addAll(List.of("-cp", cp, FaultServer.class.getName(), backend, "quiet"));
            FaultServer.Child child = FaultServer.Child.launch(cmd);
            Server s = new Server(child.process, child.port, child.stderr);
            Thread.sleep(500); // let start-up compilation and logging settle before the baseline
            return s;
        }

        /**
         * Runs one round: opens {@code connections} clients, each echoes {@link #MESSAGE} bytes
         * {@code echoes} times (all write, then all read, so the server holds every connection's
         * bytes at once), waits with them open and idle for the child's RSS to fall to
         * {@code idleToKiB} (or {@link #SETTLE_NANOS} to pass), then closes them all and waits for
         * the child's descriptors to be back and its RSS to fall to {@code settleToKiB} (or
         * {@link #SETTLE_NANOS} to pass).
         */
        Round round(int connections, int echoes, long idleToKiB, long settleToKiB) throws IOException,
                InterruptedException {
            return round(connections, echoes, MESSAGE, idleToKiB, settleToKiB);
        }

        /** {@link #round(int, int, long, long)} with messages of {@code messageBytes}. */
        Round round(int connections, int echoes, int messageBytes, long idleToKiB, long settleToKiB)
                throws IOException, InterruptedException {
            return round(connections, echoes, messageBytes, 0, idleToKiB, settleToKiB);
        }

        /**
         * {@link #round(int, int, int, long, long)}, and once the open figure is taken and before the
         * connections idle, one more echo of {@code bulkBytes} on each (none when 0): what a backend
         * keeps of a larger message's buffers shows after the close.
         */
        Round round(int connections, int echoes, int messageBytes, int bulkBytes, long idleToKiB, long settleToKiB)
                throws IOException, InterruptedException {
            long start = System.nanoTime();
            long beforeKiB = rssKiB();
            byte[] msg = new byte[messageBytes];
            Arrays.fill(msg, (byte) 'x');
            byte[] back = new byte[messageBytes];
            List<Socket> open = new ArrayList<>(connections);
            long openKiB;
            long idleKiB;
            try {
                for (int i = 0; i < connections; i++) {
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                    s.setSoTimeout(20_000);
                    open.add(s);
                }
                for (int e = 0; e < echoes; e++) {
                    for (Socket s : open) {
                        s.getOutputStream().write(msg);
                    }
                    for (Socket s : open) {
                        readFully(s.getInputStream(), back);
                    }
                }
                openKiB = rssKiB();
                if (bulkBytes > 0) {
                    byte[] bulk = new byte[bulkBytes];
                    Arrays.fill(bulk, (byte) 'y');
                    byte[] bulkBack = new byte[bulkBytes];
                    for (Socket s : open) {
                        s.getOutputStream().write(bulk);
                    }
                    for (Socket s : open) {
                        readFully(s.getInputStream(), bulkBack);
                    }
                }
                idleKiB = settle(idleToKiB);
            } finally {
                for (Socket s : open) {
                    s.close();
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long fds;
            while ((fds = fds()) > baselineFds && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (closeSettleNanos > 0) {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(closeSettleNanos));
            }
            long closedKiB = settle(settleToKiB);
            return new Round(beforeKiB, openKiB, idleKiB, closedKiB, fds, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }

        /** The child's RSS once it fell to {@code toKiB}, or after {@link #SETTLE_NANOS}. */
        private long settle(long toKiB) throws IOException, InterruptedException {
            long settle = System.nanoTime() + SETTLE_NANOS;
            long kiB;
            while ((kiB = rssKiB()) > toKiB && System.nanoTime() < settle) {
                Thread.sleep(50);
            }
            return kiB;
        }

        private void readFully(InputStream in, byte[] into) throws IOException {
            for (int at = 0; at < into.length; ) {
                int n = in.read(into, at, into.length - at);
                if (n < 0) {
                    throw new IOException("the server ended a connection before echoing; its standard error:\n"
                            + String.join("\n", stderr));
                }
                at += n;
            }
        }

        /** Takes the idle descriptor count again: start-up may hold files it has closed since. */
        void settled() throws IOException {
            baselineFds = fds();
        }

        /** The child's resident set, in KiB ({@code VmRSS} of {@code /proc/PID/status}). */
        long rssKiB() throws IOException {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.substring(6).replace("kB", "").trim());
                }
            }
            throw new IOException("no VmRSS for the child " + process.pid());
        }

        long fds() throws IOException {
            try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
                return s.count();
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
