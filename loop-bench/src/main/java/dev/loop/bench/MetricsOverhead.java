package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * What the loop's metrics cost, as the loop thread's CPU time per echo round trip (64 bytes over
 * loopback TCP, client and server on one loop), in turns: metrics off ({@code -Dloop.metrics=false}
 * as each loop opens), on, and on with a JFR recording of the JDK's default settings. CPU time,
 * unlike throughput, does not count the time a busy machine takes the thread away. Arguments:
 * rounds (default 8, after one to warm up) and backend (default epoll):
 * {@code java --enable-native-access=ALL-UNNAMED -cp loop-bench/target/benchmarks.jar dev.loop.bench.MetricsOverhead 16 epoll}
 */
public final class MetricsOverhead {
    private MetricsOverhead() {
    }

    static final int N = 20_000; // round trips per loop

    public static void main(String[] a) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        String[] modes = {"off", "on", "on+jfr"};
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        Map<String, List<Double>> alloc = new LinkedHashMap<>();
        for (String m : modes) { cpu.put(m, new ArrayList<>()); alloc.put(m, new ArrayList<>()); }
        int rounds = Integer.parseInt(a.length > 0 ? a[0] : "8");
        Map<String, Long> calls = new LinkedHashMap<>(); // the backend's counters, over every loop of the run
        for (int r = 0; r < rounds + 1; r++) {
            for (String m : modes) {
                System.setProperty("loop.metrics", m.equals("off") ? "false" : "true");
                Recording rec = null;
                if (m.equals("on+jfr")) { rec = new Recording(Configuration.getConfiguration("default")); rec.start(); }
                Loop loop = Loops.open(LoopOptions.defaults().withBackend(a.length > 1 ? a[1] : "epoll"));
                Server s = Net.listen(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), ServerOptions.defaults(),
                        c -> c.setHandler((conn, d) -> conn.write(d)));
                Connection c = loop.runUntilComplete(Net.connect(loop, (InetSocketAddress) s.localSocketAddress()));
                ByteBuffer msg = ByteBuffer.allocateDirect(64);
                Promise<Void> done = loop.newPromise();
                int[] st = {N, 64};
                c.setHandler((conn, d) -> { st[1] -= d.remaining(); d.position(d.limit());
                    if (st[1] == 0) { if (--st[0] == 0) done.complete(null); else { st[1] = 64; conn.write(msg.clear()); } } });
                long id = Thread.currentThread().threadId();
                long t0 = threads.getCurrentThreadCpuTime(), b0 = threads.getThreadAllocatedBytes(id);
                c.write(msg.clear());
                loop.runUntilComplete(done);
                long t1 = threads.getCurrentThreadCpuTime(), b1 = threads.getThreadAllocatedBytes(id);
                loop.metrics().backendCounters().forEach((k, v) -> calls.merge(k, v, Long::sum));
                loop.close();
                if (rec != null) rec.close();
                if (r > 0) { cpu.get(m).add((t1 - t0) / (double) N); alloc.get(m).add((b1 - b0) / (double) N); } // round 0 warms up
            }
        }
        double base = median(cpu.get("off"));
        for (String m : modes) {
            System.out.printf("%-7s CPU %6.0f ns per round trip (median of %d; %s), %5.1f B per round trip, ratio to off %.3f%n",
                    m, median(cpu.get(m)), cpu.get(m).size(), fmt(cpu.get(m)), median(alloc.get(m)), median(cpu.get(m)) / base);
        }
        // to set beside strace -c -f of the same run: every loop's counts, and per round trip
        long trips = (long) (rounds + 1) * modes.length * N;
        calls.forEach((k, v) -> System.out.printf("backend counter %-15s %,d in all loops, %.2f per round trip%n", k, v, v / (double) trips));
    }

    static double median(List<Double> l) { List<Double> s = new ArrayList<>(l); Collections.sort(s); return s.get(s.size() / 2); }
    static String fmt(List<Double> l) { StringBuilder b = new StringBuilder(); for (double d : l) b.append(String.format("%.0f ", d)); return b.toString().trim(); }
}
