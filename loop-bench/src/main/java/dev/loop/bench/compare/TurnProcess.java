package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A contender that lives in a process of its own and is measured in turns, seen from the
 * comparison: started once, it prints {@code READY} (or {@code ERROR <why>} / {@code UNSUPPORTED
 * <why>}); each {@code RUN <ms>} answers {@code RESULT <operations> <nanoseconds>}; {@code QUIT} or
 * the end of its input ends it. {@link TurnWorker} speaks this for the JMH benchmark methods, and
 * {@code queue_bench.py --serve} for Python's queue.
 */
final class TurnProcess implements AutoCloseable {
    /** How long a process may take to start and set up before it counts as failed. */
    static final long START_SECONDS = 60;
    /** Slack over a window's length before a silent process counts as hung. */
    static final long SLACK_SECONDS = 60;

    private final Process process;
    private final BufferedReader in;
    private final Writer out;
    private final Path log;
    private final ScheduledExecutorService watchdog;
    private String failure;

    private TurnProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.in = Processes.reader(process.getInputStream());
        this.out = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "turn-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts {@code command}, its standard error appended to {@code log}; call {@link #awaitReady} next. */
    static TurnProcess start(List<String> command, Path log) throws IOException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return new TurnProcess(p, log);
    }

    /** Null once the process is ready, else why it is not (and it is stopped). */
    String awaitReady() {
        String line = readLine(START_SECONDS);
        if (line != null && line.equals("READY")) {
            return null;
        }
        if (line != null && line.startsWith("UNSUPPORTED")) {
            failure = "n/a (" + line.substring("UNSUPPORTED".length()).trim() + ")";
        } else if (line != null && line.startsWith("ERROR ")) {
            failure = "failed: " + line.substring("ERROR ".length());
        } else {
            failure = "failed: did not start (" + (line != null ? line : Processes.tail(log, 2)) + ")";
        }
        close();
        return failure;
    }

    /** Why this contender cannot take more turns, or null while it can. */
    String failure() {
        return failure;
    }

    /**
     * One measured window of {@code millis}: operations per second, or NaN if the process failed
     * (then {@link #failure()} says why and it takes no more turns).
     */
    double run(long millis) {
        if (failure != null) {
            return Double.NaN;
        }
        try {
            out.write("RUN " + millis + "\n");
            out.flush();
        } catch (IOException e) {
            failure = "failed: the process went away (" + Processes.tail(log, 2) + ")";
            return Double.NaN;
        }
        String line = readLine(millis / 1000 + SLACK_SECONDS);
        if (line != null && line.startsWith("RESULT ")) {
            String[] f = line.split(" ");
            double ops = Double.parseDouble(f[1]);
            double nanos = Double.parseDouble(f[2]);
            return nanos > 0 ? ops / nanos * 1e9 : Double.NaN;
        }
        failure = "failed: " + (line != null && line.startsWith("ERROR ") ? line.substring(6)
                : line != null ? line : "no result (" + Processes.tail(log, 2) + ")");
        close();
        return Double.NaN;
    }

    private String readLine(long seconds) {
        ScheduledFuture<?> kill = watchdog.schedule(process::destroyForcibly, seconds, TimeUnit.SECONDS);
        try {
            return in.readLine();
        } catch (IOException e) {
            return null;
        } finally {
            kill.cancel(false);
        }
    }

    @Override
    public void close() {
        try {
            out.write("QUIT\n");
            out.flush();
        } catch (IOException ignored) {
            // already gone
        }
        Processes.stop(process);
        watchdog.shutdownNow();
    }
}
