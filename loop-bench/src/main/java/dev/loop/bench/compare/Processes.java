package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starting the child processes: JVMs of the same JDK and class path, Python, CPU pinning. */
final class Processes {
    /** Flags every benchmark JVM gets, the same as the JMH forks' ({@code BenchFlags}). */
    static final List<String> JVM_FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED", "-Xms1g", "-Xmx1g");

    private Processes() {
    }

    /** The {@code java} launcher running this JVM. */
    static String java() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** {@code java <flags> -cp <this class path> <main> <args>}. */
    static List<String> javaCommand(Class<?> main, List<String> args) {
        return javaCommand(JVM_FLAGS, main, args);
    }

    /** {@code java <flags> -cp <this class path> <main> <args>}. */
    static List<String> javaCommand(List<String> flags, Class<?> main, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(flags);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(args);
        return cmd;
    }

    private static Boolean taskset;

    /** Whether {@code taskset} exists and more than one CPU is available to pin to. */
    static synchronized boolean canPin() {
        if (taskset == null) {
            taskset = Runtime.getRuntime().availableProcessors() >= 2 && run(List.of("taskset", "-c", "0", "true")) == 0;
        }
        return taskset;
    }

    /** {@code cmd} pinned to {@code cpu} with taskset when {@code pin} and possible. */
    static List<String> pinned(boolean pin, int cpu, List<String> cmd) {
        if (!pin || !canPin()) {
            return cmd;
        }
        List<String> out = new ArrayList<>(List.of("taskset", "-c", Integer.toString(cpu)));
        out.addAll(cmd);
        return out;
    }

    /** Runs a short command to its end, output discarded; its exit status, or -1 if it cannot start. */
    static int run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The first line of a short command's output, or null. */
    static String firstLine(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String line;
            try (BufferedReader r = reader(p.getInputStream())) {
                line = r.readLine();
            }
            p.waitFor(20, TimeUnit.SECONDS);
            return line;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static BufferedReader reader(InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /** Ends a child: closes its stdin (our servers exit on that), then destroys it if it lingers. */
    static void stop(Process p) {
        try {
            p.getOutputStream().close();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroy();
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
    }

    /** Copies the Python scripts shipped as resources under {@code python/} into {@code dir}. */
    static Path extractPython(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (String name : List.of("echo_server.py", "queue_bench.py")) {
            try (InputStream in = Processes.class.getResourceAsStream("/python/" + name)) {
                if (in == null) {
                    throw new IOException("python/" + name + " is missing from the class path");
                }
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir;
    }

    /** The last lines of a log file, for a failure note. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join(" | ", all.subList(Math.max(0, all.size() - lines), all.size())).trim();
        } catch (IOException e) {
            return "";
        }
    }
}
