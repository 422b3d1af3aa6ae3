package dev.loop.bench.compare;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A load generator that is an external program run once per window, the shape of {@code wrk}
 * ({@code wrk -t1 -c100 -d1s http://host:port/}) and {@code redis-benchmark}: a subclass says how to
 * start it for a window and how to read its report; this class runs it pinned to the load
 * generator's CPU, brackets it with the meter, and kills it if it overruns. Settling runs the
 * program once more before the measured run; a burst is the measured run alone, since the server
 * is idle before the program connects and after it exits.
 */
abstract class CommandLoad implements ServerLoad.Load {
    private final boolean pin;
    private final Path log;

    CommandLoad(boolean pin, Path log) {
        this.pin = pin;
        this.log = log;
    }

    /** The command line for one run of {@code length} against {@code server}. */
    protected abstract List<String> command(ServerLoad.Endpoint server, Duration length);

    /**
     * What a run got done, read from the program's standard output; {@code seconds} is how long
     * it ran by the wall clock, for programs that do not say.
     *
     * @throws IOException if the output is not what the program prints on success
     */
    protected abstract ServerLoad.Window parse(String output, double seconds) throws IOException;

    @Override
    public ServerLoad.Window run(ServerLoad.Endpoint server, Duration settle, Duration length, boolean burst,
                                 ServerLoad.Meter meter) throws IOException {
        if (!burst && !settle.isZero()) {
            once(server, settle, ServerLoad.Meter.NONE);
        }
        return once(server, length, meter);
    }

    private ServerLoad.Window once(ServerLoad.Endpoint server, Duration length, ServerLoad.Meter meter)
            throws IOException {
        List<String> cmd = Processes.pinned(pin, 1, command(server, length));
        meter.begin();
        long t0 = System.nanoTime();
        long children0 = ProcCpu.reapedChildrenNanos();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long limit = length.toSeconds() + 60;
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                if (!p.waitFor(limit, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        });
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(limit, TimeUnit.SECONDS) || watchdog.isInterrupted()) {
                p.destroyForcibly();
                throw new IOException(cmd.get(0) + " did not finish within " + limit + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        } finally {
            meter.end();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited with status " + p.exitValue() + " ("
                    + Processes.tail(log, 2) + ")");
        }
        ServerLoad.Window w = parse(output, seconds);
        if (Double.isNaN(w.clientCpu())) {
            // a program that does not report its own CPU: what the kernel charged us for it once it
            // was reaped (its whole run, start-up included: an upper bound)
            long used = ProcCpu.reapedChildrenNanos() - children0;
            if (children0 >= 0 && used >= 0) {
                w = new ServerLoad.Window(w.operations(), w.bytes(), w.seconds(), used / 1e9, w.p50Micros(),
                        w.p99Micros());
            }
        }
        return w;
    }
}
