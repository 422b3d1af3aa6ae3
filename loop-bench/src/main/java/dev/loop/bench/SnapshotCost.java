package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * What a metrics snapshot ({@code loop.metrics()}) costs its caller, without and with a UDP socket
 * on the loop (whose drops the snapshot reads from {@code /proc/net/udp}), as other UDP sockets
 * on the host grow in number: the table has a line for each. A loop reads the table at most once
 * a second, so a snapshot mostly finds the value read before; the table's own cost is measured
 * apart. Wall time, median of rounds, on the calling thread. Arguments: other sockets (default 0 100 1000), backend (default
 * epoll):
 * {@code java --enable-native-access=ALL-UNNAMED -cp loop-bench/target/benchmarks.jar dev.loop.bench.SnapshotCost "0 100 1000" epoll}
 */
public final class SnapshotCost {
    private SnapshotCost() {
    }

    static final int SNAPSHOTS = 200;
    static final int ROUNDS = 5;
    static final int TABLE_READS = 20;

    public static void main(String[] a) throws Exception {
        String[] others = (a.length > 0 ? a[0] : "0 100 1000").trim().split("\\s+");
        String backend = a.length > 1 ? a[1] : "epoll";
        InetAddress lo = InetAddress.getLoopbackAddress();
        for (String o : others) {
            List<DatagramSocket> host = new ArrayList<>();
            try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
                for (int i = 0; i < Integer.parseInt(o); i++) {
                    host.add(new DatagramSocket(0, lo)); // somebody else's sockets: lines in the table
                }
                double without = perSnapshot(loop);
                DatagramEndpoint ep = Datagrams.bind(loop, new InetSocketAddress(lo, 0));
                double with = perSnapshot(loop);
                ep.abort();
                double table = perTableRead();
                System.out.printf("%5s other UDP sockets: %,9.0f ns per snapshot without a UDP socket on the loop, %,9.0f ns"
                        + " with one; %,11.0f ns per read of /proc/net/udp (at most one a second per loop)%n", o, without, with, table);
            } finally {
                for (DatagramSocket s : host) {
                    s.close();
                }
            }
        }
    }

    /** One read of the kernel's table, line by line, as a loop's snapshot reads it when it is due. */
    private static double perTableRead() throws java.io.IOException {
        double[] r = new double[ROUNDS];
        long lines = 0;
        for (int k = 0; k < ROUNDS + 1; k++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < TABLE_READS; i++) {
                try (var in = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of("/proc/net/udp"))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        lines += line.trim().split("\\s+").length;
                    }
                }
            }
            if (k > 0) {
                r[k - 1] = (System.nanoTime() - t0) / (double) TABLE_READS;
            }
        }
        if (lines < 0) {
            System.out.println(lines);
        }
        java.util.Arrays.sort(r);
        return r[ROUNDS / 2];
    }

    private static double perSnapshot(Loop loop) {
        double[] r = new double[ROUNDS];
        long sink = 0;
        for (int k = 0; k < ROUNDS + 1; k++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < SNAPSHOTS; i++) {
                sink += loop.metrics().datagramsDropped();
            }
            if (k > 0) { // the first round warms up
                r[k - 1] = (System.nanoTime() - t0) / (double) SNAPSHOTS;
            }
        }
        if (sink < 0) {
            System.out.println(sink); // keeps the snapshots from being optimised away
        }
        java.util.Arrays.sort(r);
        return r[ROUNDS / 2];
    }
}
