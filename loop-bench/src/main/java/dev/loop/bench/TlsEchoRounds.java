package dev.loop.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocket;

/**
 * TLS echo throughput, server CPU and server allocation per operation, ours against Netty's
 * {@code SslHandler} ({@link TlsEchoServers}), measured side by side on a shared machine: all servers
 * run in this JVM at once, and in each round every server gets one window in turn, the order
 * rotating by one place per round, as the compare command does. Ratios are taken round by round
 * (ours over the best Netty of that round) and the median is reported with the lowest and highest.
 *
 * <pre>
 * java $F -cp loop-bench/target/benchmarks.jar dev.loop.bench.TlsEchoRounds \
 *      [--mode pingpong|handshake] [--size BYTES] [--rounds N] [--window-ms MS] [--warmup-ms MS]
 * </pre>
 * {@code pingpong}: one client connection per server, a message of {@code size} bytes out and back
 * per operation. {@code handshake}: connect, full TLS 1.3 handshake (nothing resumed), close.
 */
public final class TlsEchoRounds {
    private TlsEchoRounds() {
    }

    /** One server and the client that drives it. */
    private static final class Contender {
        final TlsEchoServers.Running server;
        final TlsEchoServers.Contexts contexts;
        final boolean handshakes;
        SSLSocket client;
        OutputStream out;
        DataInputStream in;
        final byte[] message;
        final byte[] echo;
        final List<double[]> rounds = new ArrayList<>(); // ops/s, server CPU us/op, server B/op

        Contender(TlsEchoServers.Running server, TlsEchoServers.Contexts contexts, boolean handshakes, int size)
                throws IOException {
            this.server = server;
            this.contexts = contexts;
            this.handshakes = handshakes;
            message = new byte[size];
            echo = new byte[size];
            Arrays.fill(message, (byte) 'x');
            if (!handshakes) {
                client = contexts.connect(server.address());
                out = client.getOutputStream();
                in = new DataInputStream(client.getInputStream());
            }
        }

        /** Runs operations for {@code ms}; returns ops/s, server CPU microseconds per op, server bytes per op. */
        double[] window(long ms) throws IOException {
            long cpu0 = server.cpuNanos();
            long alloc0 = server.allocated();
            long start = System.nanoTime();
            long end = start + ms * 1_000_000;
            long ops = 0;
            long now;
            do {
                if (handshakes) {
                    SSLSocket s = contexts.connect(server.address());
                    s.getSession().invalidate();
                    s.close();
                } else {
                    out.write(message);
                    out.flush();
                    in.readFully(echo);
                }
                ops++;
            } while ((now = System.nanoTime()) < end);
            double secs = (now - start) / 1e9;
            return new double[] {ops / secs, (server.cpuNanos() - cpu0) / 1e3 / ops, (double) (server.allocated() - alloc0) / ops};
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = option(args, "--mode", "pingpong");
        int size = Integer.parseInt(option(args, "--size", "64"));
        int rounds = Integer.parseInt(option(args, "--rounds", "10"));
        long window = Long.parseLong(option(args, "--window-ms", "300"));
        long warmup = Long.parseLong(option(args, "--warmup-ms", "3000"));
        boolean handshakes = switch (mode) {
            case "pingpong" -> false;
            case "handshake" -> true;
            default -> throw new IllegalArgumentException("--mode is pingpong or handshake, not " + mode);
        };
        TlsEchoServers.Contexts contexts = TlsEchoServers.Contexts.make();
        Map<String, Contender> all = new LinkedHashMap<>();
        for (String name : TlsEchoServers.ALL) {
            all.put(name, new Contender(TlsEchoServers.start(name, contexts.server()), contexts, handshakes, size));
        }
        List<Contender> order = new ArrayList<>(all.values());
        for (int pass = 0; pass < 3; pass++) { // JIT warm-up of every path, in turns as well
            for (Contender c : order) {
                c.window(warmup / 3);
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < order.size(); i++) {
                Contender c = order.get((i + r) % order.size());
                c.rounds.add(c.window(window));
            }
        }
        System.out.printf("TLS echo %s%s, %d rounds of %d ms per server, warm-up %d ms; JDK %s%n", mode,
                handshakes ? "" : " " + size + " B", rounds, window, warmup, Runtime.version());
        System.out.printf("%-12s %12s %12s %12s %14s %14s%n", "server", "median op/s", "lowest", "highest",
                "server us/op", "server B/op");
        for (Contender c : order) {
            System.out.printf("%-12s %,12.0f %,12.0f %,12.0f %14.1f %,14.0f%n", c.server.name(), median(c, 0), min(c, 0),
                    max(c, 0), median(c, 1), median(c, 2));
        }
        for (String ours : List.of("loop-select", "loop-epoll")) {
            double[] ratio = new double[rounds];
            double[] cpu = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                double nio = all.get("netty-nio").rounds.get(r)[0];
                double epoll = all.get("netty-epoll").rounds.get(r)[0];
                boolean nioBest = nio >= epoll;
                ratio[r] = all.get(ours).rounds.get(r)[0] / Math.max(nio, epoll);
                cpu[r] = all.get(ours).rounds.get(r)[1] / all.get(nioBest ? "netty-nio" : "netty-epoll").rounds.get(r)[1];
            }
            Arrays.sort(ratio);
            Arrays.sort(cpu);
            System.out.printf("%s vs best Netty per round: throughput x%.2f (%.2f-%.2f), server CPU per op x%.2f (%.2f-%.2f)%n",
                    ours, ratio[rounds / 2], ratio[0], ratio[rounds - 1], cpu[rounds / 2], cpu[0], cpu[rounds - 1]);
        }
        for (Contender c : order) {
            if (c.client != null) {
                c.client.close();
            }
            c.server.close();
        }
    }

    private static double median(Contender c, int i) {
        double[] v = c.rounds.stream().mapToDouble(x -> x[i]).sorted().toArray();
        return v[v.length / 2];
    }

    private static double min(Contender c, int i) {
        return c.rounds.stream().mapToDouble(x -> x[i]).min().orElse(0);
    }

    private static double max(Contender c, int i) {
        return c.rounds.stream().mapToDouble(x -> x[i]).max().orElse(0);
    }

    private static String option(String[] args, String name, String dflt) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return dflt;
    }
}
