package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The runner's end of a server process's standard input and output: the first line
 * ({@code LISTENING <port>}), then, for a server of ours, the {@link LoopProbe}'s questions and
 * answers around each measured window. A daemon thread reads the output into a queue, so a
 * server that stops answering costs a bounded wait ({@link #REPLY_SECONDS}) and no more: after a
 * missing or foreign answer the probe is off for that server and its row shows "-".
 */
final class ServerControl {
    static final int REPLY_SECONDS = 5;
    private static final String EOF = new String("end of output");

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private volatile boolean probing;

    ServerControl(Process process, boolean probe) {
        this.process = process;
        this.probing = probe;
        Thread t = new Thread(() -> {
            try (BufferedReader r = Processes.reader(process.getInputStream())) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process is gone: EOF below
            }
            lines.add(EOF);
        }, "server-output");
        t.setDaemon(true);
        t.start();
    }

    /** The next line the server printed, waiting up to {@code seconds} (then it is killed); null at its end. */
    String firstLine(int seconds) {
        try {
            String l = lines.poll(seconds, TimeUnit.SECONDS);
            if (l == null) {
                process.destroyForcibly();
                return null;
            }
            return l == EOF ? null : l;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Asks the server's probe {@code question} and returns the pairs of its answer; empty when
     * this server has no probe, and from then on for good when it did not answer in time or
     * answered something else.
     */
    synchronized Map<String, String> ask(String question) {
        if (!probing) {
            return Map.of();
        }
        try {
            OutputStream in = process.getOutputStream();
            in.write((question + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
            String answer = lines.poll(REPLY_SECONDS, TimeUnit.SECONDS);
            if (answer == null || answer == EOF || !answer.startsWith(LoopProbe.REPLY + " ")) {
                probing = false;
                return Map.of();
            }
            return LoopProbe.parse(answer);
        } catch (IOException e) {
            probing = false;
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            probing = false;
            return Map.of();
        }
    }

    boolean probing() {
        return probing;
    }

    /** A meter that marks the window's start and reads the loops' figures at its end. */
    Probe probe() {
        return new Probe();
    }

    /** The loops' figures over one window, read by {@link ServerControl#probe()}. */
    final class Probe implements ServerLoad.Meter {
        private Map<String, String> report = Map.of();

        @Override
        public void begin() {
            ask(LoopProbe.MARK);
        }

        @Override
        public void end() {
            report = ask(LoopProbe.REPORT);
        }

        /** The loops' busy ratio over the window; NaN when not read. */
        double busy() {
            return number("busy");
        }

        /** The loops' scheduling-lag p99 over the window in nanoseconds; NaN when not read. */
        double lagP99Nanos() {
            return number("lagP99Nanos");
        }

        /** The server process's CPU seconds over the window, to the nanosecond; NaN when not read. */
        double cpuSeconds() {
            return number("cpuNanos") / 1e9;
        }

        private double number(String key) {
            String v = report.get(key);
            if (v == null) {
                return Double.NaN;
            }
            try {
                return Double.parseDouble(v);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
    }
}
