package dev.loop.bench.compare;

import dev.loop.Loop;
import dev.loop.LoopMetrics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The compare command's view of a server's loops, over the server process's standard input and
 * output (the channel the runner already holds: it stops a server by closing that input). The
 * runner writes {@value #MARK} just before a measured window and {@value #REPORT} just after it;
 * the server answers each with one line, {@code LOOP key=value ...}: the loops' busy ratio and
 * scheduling-lag p99 over the window ({@link LoopMetrics} snapshots at both ends) and the
 * process's CPU time over it, to the nanosecond ({@link #processCpuNanos}: {@code /proc/<pid>/stat}
 * and the JVM's own figure count in 10 ms ticks, too coarse for a difference of 2%). No loop registered (a peer), or
 * metrics off: {@code busy} and {@code lag} are absent and the runner shows "-".
 *
 * <p>A snapshot copies about 8 KiB and is taken on the control thread, not the loop's: two per
 * window, whatever the load. The end of standard input ends the process, as before.
 */
public final class LoopProbe {
    static final String MARK = "loop-mark";
    static final String REPORT = "loop-report";
    static final String REPLY = "LOOP";

    private static volatile List<Loop> loops = List.of();
    private LoopMetrics mark;
    private long cpuMark;

    /** The loops whose metrics the probe reports from now on: the server's, once they are open. */
    public static void register(List<Loop> serving) {
        loops = List.copyOf(serving);
    }

    /**
     * Reads standard input on a daemon thread: answers the probe's lines on {@code out}, hands any
     * other line to {@code other} (null: ignored; a non-null answer is printed), and ends the
     * process with status 0 when the input ends, so a server never outlives the command that
     * started it.
     */
    public static void watchStdin(PrintStream out, Function<String, String> other) {
        Thread t = new Thread(stdinWatcher(out, other), "stdin-watch");
        t.setDaemon(true);
        t.start();
    }

    /** What {@link #watchStdin} runs, for a server that starts the thread itself. */
    public static Runnable stdinWatcher(PrintStream out, Function<String, String> other) {
        LoopProbe probe = new LoopProbe();
        return () -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    String answer = line.startsWith("loop-") ? probe.answer(line.trim(), loops)
                            : other == null ? null : other.apply(line);
                    if (answer != null) {
                        synchronized (out) {
                            out.println(answer);
                            out.flush();
                        }
                    }
                }
            } catch (Exception parentGone) {
                // the input ended either way
            }
            Runtime.getRuntime().halt(0);
        };
    }

    /** The answer to one of the probe's lines, against the loops now registered. */
    String answer(String line, List<Loop> now) {
        LoopMetrics m = now.isEmpty() ? null : snapshot(now);
        long cpu = processCpuNanos();
        if (line.equals(MARK)) {
            mark = m;
            cpuMark = cpu;
            return REPLY + " marked";
        }
        if (!line.equals(REPORT)) {
            return REPLY + " unknown=" + line.replaceAll("\\s+", "_");
        }
        StringBuilder sb = new StringBuilder(REPLY);
        if (cpu >= 0 && cpuMark >= 0) {
            sb.append(" cpuNanos=").append(cpu - cpuMark);
        }
        if (m != null && mark != null && m.loops() == mark.loops()) {
            long iterations = m.iterations() - mark.iterations();
            sb.append(" loops=").append(m.loops()).append(" iterations=").append(iterations);
            // metrics off: busy and idle time stay 0 (iterations are counted all the same), and a
            // ratio of nothing would read as an idle loop
            long measured = m.busyNanos() - mark.busyNanos() + m.idleNanos() - mark.idleNanos();
            if (iterations > 0 && measured > 0) {
                sb.append(String.format(Locale.ROOT, " busy=%.6f", m.busyRatioSince(mark)));
                sb.append(" lagP99Nanos=").append(m.schedulingLag().since(mark.schedulingLag()).p99Nanos());
            }
        }
        return sb.toString();
    }

    static LoopMetrics snapshot(List<Loop> all) {
        List<LoopMetrics> each = new ArrayList<>(all.size());
        for (Loop l : all) {
            each.add(l.metrics());
        }
        return LoopMetrics.sum(each);
    }

    /**
     * This process's CPU time in nanoseconds: the run time Linux keeps per thread
     * ({@code /proc/self/task/<tid>/schedstat}, to the nanosecond), summed over the threads alive
     * now, JVM threads (GC, JIT, JFR) included; a thread that ended since the mark is not counted.
     * Elsewhere the JVM's process CPU time (in 10 ms ticks on Linux); -1 when neither is there.
     */
    static long processCpuNanos() {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    String s = Files.readString(t.resolve("schedstat"));
                    int sp = s.indexOf(' ');
                    sum += Long.parseLong(sp < 0 ? s.trim() : s.substring(0, sp));
                } catch (IOException | NumberFormatException gone) {
                    // the thread ended while being read: its time is lost either way
                }
            }
            if (sum > 0) {
                return sum;
            }
        } catch (IOException | RuntimeException notLinux) {
            // below
        }
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** A {@code LOOP k=v ...} line as its pairs; empty for any other line. */
    static Map<String, String> parse(String line) {
        Map<String, String> out = new TreeMap<>();
        if (line == null || !line.startsWith(REPLY + " ")) {
            return out;
        }
        for (String kv : line.substring(REPLY.length() + 1).trim().split("\\s+")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                out.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return out;
    }
}
