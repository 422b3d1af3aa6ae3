package dev.loop.examples;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real clients for the servers' tests: programs found on the PATH ({@code curl}, {@code wrk},
 * {@code redis-cli}, {@code redis-benchmark}; CI installs them in {@code .ci/run}), run with a
 * deadline, and raw JDK sockets for what no polite client sends.
 */
public final class ExternalTools {
    private ExternalTools() {
    }

    /** What a finished program printed, and how it exited. */
    public record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    /** Skips the calling test, naming the package to install, if {@code program} is not on the PATH. */
    public static void assumeInstalled(String program, String debianPackage) {
        assumeTrue(find(program) != null, program + " is not installed (apt-get install " + debianPackage
                + "; CI installs it in .ci/run)");
    }

    public static Path find(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Runs {@code command} with stdin closed and waits at most {@code deadline}.
     *
     * @throws AssertionError if it is still running then (it is killed)
     */
    public static Result run(Duration deadline, String... command) throws IOException, InterruptedException {
        return run(deadline, null, command);
    }

    /** Runs {@code command} with {@code input} (null: nothing) on its stdin and waits at most {@code deadline}. */
    public static Result run(Duration deadline, byte[] input, String... command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("tool-out", ".txt");
        Path err = Files.createTempFile("tool-err", ".txt");
        Path in = input == null ? null : Files.write(Files.createTempFile("tool-in", ".txt"), input);
        try {
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(in == null ? new File("/dev/null") : in.toFile())).start();
            if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(String.join(" ", command) + " still running after " + deadline.toSeconds()
                        + " s; output so far:\n" + Files.readString(out) + "\n" + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            if (in != null) {
                Files.deleteIfExists(in);
            }
        }
    }

    /** Opens a plain socket to {@code address} whose reads give up after {@code timeout}. */
    public static Socket connect(InetSocketAddress address, Duration timeout) throws IOException {
        Socket s = new Socket();
        s.connect(address, (int) timeout.toMillis());
        s.setSoTimeout((int) timeout.toMillis());
        return s;
    }

    /** Writes {@code bytes}, then reads until the server closes; fails if it does not within the timeout. */
    public static byte[] sendAndReadToEnd(InetSocketAddress address, byte[] bytes, Duration timeout) throws IOException {
        try (Socket s = connect(address, timeout)) {
            OutputStream o = s.getOutputStream();
            try {
                o.write(bytes);
                o.flush();
            } catch (IOException e) {
                // the server may refuse and close before it has read everything; its answer still counts
            }
            return s.getInputStream().readAllBytes();
        }
    }

    /** Reads {@code n} bytes exactly, or fails at end of stream. */
    public static byte[] readExactly(InputStream in, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new IOException("stream ended after " + b.length + " of " + n + " bytes");
        }
        return b;
    }

    /** Splits text into lines, for looking things up in a tool's output. */
    public static List<String> lines(String text) {
        return new ArrayList<>(text.lines().toList());
    }
}
