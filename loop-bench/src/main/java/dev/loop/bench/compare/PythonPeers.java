package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Python's asyncio and uvloop as peers, when the machine has them: the interpreter given by
 * {@code --python} (Debian's {@code /usr/bin/python3}, into which {@code python3-uvloop} installs).
 * A loop that is missing is reported with the reason, never silently left out.
 */
final class PythonPeers {
    static final List<String> LOOPS = List.of("asyncio", "uvloop");

    private PythonPeers() {
    }

    /** Why {@code loop} cannot run with {@code python}, or null if it can. */
    static String unavailable(String python, String loop) {
        if (!Files.isExecutable(Path.of(python))) {
            return "skipped: " + python + " not found (install python3" + (loop.equals("uvloop") ? "-uvloop" : "") + ")";
        }
        String module = loop.equals("uvloop") ? "uvloop" : "asyncio";
        if (Processes.run(List.of(python, "-c", "import " + module)) != 0) {
            return "skipped: " + module + " not installed for " + python
                    + (loop.equals("uvloop") ? " (apt-get install python3-uvloop)" : "");
        }
        return null;
    }

    /** The interpreter's version, e.g. "Python 3.11.2", and uvloop's when present. */
    static String describe(String python) {
        String v = Processes.firstLine(List.of(python, "--version"));
        String u = Processes.firstLine(List.of(python, "-c", "import uvloop; print(uvloop.__version__)"));
        return (v == null ? python : v) + (u != null && u.matches("[0-9.]+") ? ", uvloop " + u : ", no uvloop");
    }

    /** asyncio.Queue(maxsize=128) on {@code loop}: one row, or one saying why not. */
    static Row queue(CompareOptions o, Path scripts, String loop, Progress progress) {
        String contender = "python " + loop;
        String w = MicroRunner.QUEUE_WORKLOAD;
        String why = unavailable(o.python(), loop);
        if (why != null) {
            progress.note(String.format(Locale.ROOT, "  %-40s %s", contender, why));
            return Row.unavailable("queue", w, contender, Row.Side.PEER, "items/s", why);
        }
        progress.start(w, contender);
        List<String> cmd = Processes.pinned(o.pin(), 0, List.of(o.python(), scripts.resolve("queue_bench.py").toString(),
                "--loop", loop,
                "--warmup", String.format(Locale.ROOT, "%.3f", o.warmup().toMillis() / 1000.0),
                "--iterations", Integer.toString(o.iterations()),
                "--iteration", String.format(Locale.ROOT, "%.3f", o.iteration().toMillis() / 1000.0)));
        List<Double> samples = new ArrayList<>();
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try (BufferedReader r = Processes.reader(p.getInputStream())) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("ITER ")) {
                        samples.add(Double.parseDouble(line.substring(5).trim()));
                        progress.tick();
                    }
                }
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (IOException e) {
            progress.finish("failed: " + e);
            return Row.unavailable("queue", w, contender, Row.Side.PEER, "items/s", "failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (samples.isEmpty()) {
            progress.finish("failed");
            return Row.unavailable("queue", w, contender, Row.Side.PEER, "items/s", "failed: no output from queue_bench.py");
        }
        Row row = Row.of("queue", w, contender, Row.Side.PEER, "items/s", samples);
        progress.finish(Format.si(row.median()) + " items/s");
        return row;
    }
}
