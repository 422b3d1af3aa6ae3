package dev.loop.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** CPU time of a process tree, from Linux's {@code /proc}; 0 elsewhere. */
final class ProcCpu {
    /** Linux reports user and system time in clock ticks of 10 ms ({@code USER_HZ} = 100). */
    static final long NANOS_PER_TICK = 10_000_000L;

    private ProcCpu() {
    }

    /** User + system time of {@code pid}, every thread, dead ones included. */
    static long nanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK; // utime, stime
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * User + system time of this process's children that have ended and been waited for
     * ({@code cutime}, {@code cstime}); -1 when unknown. A load generator run to its end is charged
     * here, so the difference around its run is its CPU time, whatever it reports itself.
     */
    static long reapedChildrenNanos() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[13]) + Long.parseLong(f[14])) * NANOS_PER_TICK; // cutime, cstime
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static long nanos(List<Long> pids) {
        long sum = 0;
        for (long p : pids) {
            sum += nanos(p);
        }
        return sum;
    }

    /** How many threads {@code pid} has now (at least 1). */
    static int threads(long pid) {
        try (var s = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return (int) Math.max(1, s.count());
        } catch (IOException | RuntimeException e) {
            return 1;
        }
    }

    /** A meter of the server's CPU between {@code begin} and {@code end}. */
    static final class Meter implements ServerLoad.Meter {
        private final ServerLoad.Endpoint server;
        private long start;
        private long used = -1;

        Meter(ServerLoad.Endpoint server) {
            this.server = server;
        }

        @Override
        public void begin() {
            start = nanos(server.pids());
        }

        @Override
        public void end() {
            used = nanos(server.pids()) - start;
        }

        /** CPU seconds between begin and end; NaN if not measured. */
        double seconds() {
            return used < 0 ? Double.NaN : used / 1e9;
        }
    }
}
