package dev.loop.bench.compare;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
}
