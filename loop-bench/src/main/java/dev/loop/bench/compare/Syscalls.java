package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A server's system calls per operation, counted with {@code strace -c -f -p TID...} over a burst
 * of its own (never over a throughput window: tracing slows a server several times over). The
 * count is a property of the code path, not of the machine's load, so noise does not move it: a
 * figure to set beside the throughput when two servers are close.
 *
 * <p>Every thread of the server is traced except a JVM's JIT compiler threads ({@link #jitThread}):
 * a compilation that happens to land in the burst grows the compiler thread's C heap, which glibc
 * does with one {@code mprotect} per few pages it needs (a thread's own arena grows exactly as far
 * as each allocation asks); measured with {@code perf record -e syscalls:sys_enter_mprotect -g},
 * such a compilation made 153 calls in one second, which a burst of a few thousand messages counts
 * as 0.35 per message although no message makes one. The same rule holds for every JVM contender.
 *
 * @param perOp     every system call of every thread of the server per operation
 * @param breakdown per operation by system call, the most frequent first
 * @param note      why there is no count (strace missing, could not attach...), or null
 */
record Syscalls(double perOp, Map<String, Double> breakdown, String note) {

    /** Whether a thread of this name (Linux keeps 15 characters) is a HotSpot JIT compiler thread. */
    static boolean jitThread(String name) {
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }

    static Syscalls unavailable(String why) {
        return new Syscalls(Double.NaN, Map.of(), why);
    }

    boolean measured() {
        return !Double.isNaN(perOp);
    }

    /** "2.11 (read 1.00, write 1.00, epoll_wait 0.10)": the total and the calls above 0.05 per op, at most four. */
    String describe() {
        if (!measured()) {
            return note == null ? "-" : note;
        }
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Double> e : breakdown.entrySet()) {
            if (parts.size() == 4 || e.getValue() < 0.05) {
                break;
            }
            parts.add(e.getKey() + " " + String.format(Locale.ROOT, "%.2f", e.getValue()));
        }
        return String.format(Locale.ROOT, "%.2f", perOp) + (parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")");
    }

    /** Calls per system call name from {@code strace -c} output, the most frequent first. */
    static Map<String, Long> parse(List<String> lines) {
        Map<String, Long> calls = new LinkedHashMap<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            // "% time  seconds  usecs/call  calls  [errors]  syscall"
            if ((f.length != 5 && f.length != 6) || !f[0].matches("[0-9.]+") || f[f.length - 1].equals("total")) {
                continue;
            }
            try {
                calls.merge(f[f.length - 1], Long.parseLong(f[3]), Long::sum);
            } catch (NumberFormatException e) {
                // not a row of the table
            }
        }
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(calls.entrySet());
        sorted.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        Map<String, Long> out = new LinkedHashMap<>();
        sorted.forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** The counts over {@code operations}. */
    static Syscalls of(Map<String, Long> calls, long operations) {
        if (operations <= 0) {
            return unavailable("n/a (no operation in the traced burst)");
        }
        Map<String, Double> per = new LinkedHashMap<>();
        long total = 0;
        for (Map.Entry<String, Long> e : calls.entrySet()) {
            per.put(e.getKey(), e.getValue() / (double) operations);
            total += e.getValue();
        }
        return new Syscalls(total / (double) operations, per, null);
    }

    /**
     * Null if strace can be used here, else why not. When it is missing and this process runs as
     * root on Debian, installs it first ({@code apt-get install -y strace}), as the comparison's
     * only system package.
     */
    static String ensureStrace(Progress progress) {
        if (Processes.run(List.of("strace", "-V")) == 0) {
            return null;
        }
        boolean root = "0".equals(Processes.firstLine(List.of("id", "-u")));
        if (!root || Processes.run(List.of("apt-get", "--version")) != 0) {
            return "n/a (strace not installed; apt-get install strace needs root)";
        }
        progress.note("compare: strace missing, installing it: apt-get install -y strace");
        if (Processes.run(List.of("apt-get", "install", "-y", "-q", "strace")) != 0) {
            Processes.run(List.of("apt-get", "update", "-q"));
            Processes.run(List.of("apt-get", "install", "-y", "-q", "strace"));
        }
        return Processes.run(List.of("strace", "-V")) == 0 ? null : "n/a (apt-get install strace failed)";
    }

    /**
     * A {@link ServerLoad.Meter} that traces the server's processes (every thread) from
     * {@code begin} to {@code end}; {@link #result} then gives the counts over the operations.
     */
    static final class Tracer implements ServerLoad.Meter {
        private final ServerLoad.Endpoint server;
        private final Path output;
        private final Path log;
        private Process strace;
        private String failure;
        private Map<String, Long> calls;

        Tracer(ServerLoad.Endpoint server, Path output, Path log) {
            this.server = server;
            this.output = output;
            this.log = log;
        }

        @Override
        public void begin() throws IOException {
            List<Long> pids = server.pids();
            int threads = 0;
            List<String> cmd = new ArrayList<>(List.of("strace", "-c", "-f", "-o", output.toString()));
            for (long pid : pids) {
                List<Long> traced = tracedThreads(pid);
                for (long tid : traced) {
                    cmd.add("-p");
                    cmd.add(Long.toString(tid));
                }
                threads += traced.size();
            }
            Files.deleteIfExists(output);
            strace = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            // strace says "Process N attached with T threads" (or "Process N attached" per thread):
            // trace only once every thread is; its messages are read on a thread of their own so
            // strace never blocks on a full pipe and we never block on a silent strace
            java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();
            BufferedReader err = Processes.reader(strace.getErrorStream());
            Thread drain = new Thread(() -> {
                try {
                    String line;
                    while ((line = err.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException ignored) {
                    // strace ended
                }
            }, "strace-stderr");
            drain.setDaemon(true);
            drain.start();
            int attached = 0;
            StringBuilder said = new StringBuilder();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            try {
                while (attached < threads && System.nanoTime() < deadline && strace.isAlive()) {
                    String line = lines.poll(attached > 0 ? 300 : 1000, TimeUnit.MILLISECONDS);
                    if (line == null) {
                        if (attached > 0) {
                            break; // nothing more to come: threads may have ended since we counted them
                        }
                        continue;
                    }
                    attached += attachedThreads(line);
                    if (attachedThreads(line) == 0) {
                        said.append(line).append(' ');
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (attached == 0) {
                failure = "n/a (strace could not attach: " + said.toString().trim() + ")";
                strace.destroyForcibly();
            }
        }

        /** The threads of {@code pid} to trace: all but a JVM's JIT compiler threads; the process itself if unreadable. */
        static List<Long> tracedThreads(long pid) {
            List<Long> out = new ArrayList<>();
            try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    String name;
                    try {
                        name = Files.readString(t.resolve("comm")).trim();
                    } catch (IOException gone) {
                        continue; // the thread ended meanwhile
                    }
                    if (!jitThread(name)) {
                        out.add(Long.parseLong(t.getFileName().toString()));
                    }
                }
            } catch (IOException | RuntimeException e) {
                return List.of(pid);
            }
            return out.isEmpty() ? List.of(pid) : out;
        }

        /** How many threads a line of strace's says it attached: "Process N attached [with T threads]". */
        static int attachedThreads(String line) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("Process \\d+ attached(?: with (\\d+) threads)?")
                    .matcher(line);
            if (!m.find()) {
                return 0;
            }
            return m.group(1) == null ? 1 : Integer.parseInt(m.group(1));
        }

        @Override
        public void end() throws IOException {
            if (strace == null || failure != null) {
                return;
            }
            strace.destroy(); // SIGTERM: strace detaches and writes its summary
            try {
                if (!strace.waitFor(20, TimeUnit.SECONDS)) {
                    strace.destroyForcibly();
                    failure = "n/a (strace did not finish)";
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = "n/a (interrupted)";
                return;
            }
            calls = parse(Files.exists(output) ? Files.readAllLines(output) : List.of());
            if (calls.isEmpty()) {
                failure = "n/a (strace counted nothing: " + Processes.tail(log, 1) + ")";
            }
        }

        Syscalls result(long operations) {
            if (failure != null) {
                return unavailable(failure);
            }
            if (calls == null) {
                return unavailable("n/a (not traced)");
            }
            return of(calls, operations);
        }
    }
}
