package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Echo load: one pattern (ping-pong or stream) at one connection count, put on a server by the
 * {@link LoadGenerator} process that every echo workload shares ({@link Generator}): started once,
 * pinned to the load generator's CPU, so its JIT warms up with the servers' warm-up and stays the
 * same for every server.
 */
final class EchoLoad implements ServerLoad.Load {
    private final Generator generator;
    private final boolean stream;
    private final int connections;
    private final int size;
    private final int inflight;

    EchoLoad(Generator generator, boolean stream, int connections, int size, int inflight) {
        this.generator = generator;
        this.stream = stream;
        this.connections = connections;
        this.size = size;
        this.inflight = inflight;
    }

    @Override
    public ServerLoad.Window run(ServerLoad.Endpoint server, Duration settle, Duration length, boolean burst,
                                 ServerLoad.Meter meter) throws IOException {
        return generator.run(String.join(" ", "RUN", server.host(), Integer.toString(server.port()),
                stream ? "stream" : "pingpong", Integer.toString(connections), Integer.toString(size),
                Integer.toString(inflight), Long.toString(settle.toMillis()), burst ? "1" : "0"), length, meter);
    }

    @Override
    public void close() {
        generator.close();
    }

    /** The load generator process, started on first use; one window at a time. */
    static final class Generator implements AutoCloseable {
        private final boolean pin;
        private final Path log;
        private Process process;
        private BufferedReader in;
        private Writer out;
        private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "load-watchdog");
            t.setDaemon(true);
            return t;
        });

        Generator(boolean pin, Path log) {
            this.pin = pin;
            this.log = log;
        }

        synchronized ServerLoad.Window run(String command, Duration length, ServerLoad.Meter meter) throws IOException {
            if (process == null || !process.isAlive()) {
                process = new ProcessBuilder(Processes.pinned(pin, 1,
                        Processes.javaCommand(LoadGenerator.class, List.of())))
                        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
                in = Processes.reader(process.getInputStream());
                out = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            }
            try {
                send(command);
                expect("READY", 60);
                meter.begin();
                send("GO " + length.toMillis());
                String result = expect("RESULT", length.toSeconds() + 60);
                meter.end();
                return parse(result);
            } finally {
                if (process.isAlive()) {
                    try {
                        send("CLOSE");
                        expect("CLOSED", 30);
                    } catch (IOException e) {
                        // the session's own failure, if any, is the one to report
                    }
                }
            }
        }

        /** {@code RESULT <messages> <bytes> <seconds> <client cpu s> <p50 ns> <p99 ns>}. */
        static ServerLoad.Window parse(String line) {
            String[] f = line.split(" ");
            return new ServerLoad.Window(Long.parseLong(f[1]), Long.parseLong(f[2]), Double.parseDouble(f[3]),
                    Double.parseDouble(f[4]), Double.parseDouble(f[5]) / 1000, Double.parseDouble(f[6]) / 1000);
        }

        private void send(String line) throws IOException {
            out.write(line + "\n");
            out.flush();
        }

        private String expect(String what, long seconds) throws IOException {
            ScheduledFuture<?> kill = watchdog.schedule(process::destroyForcibly, seconds, TimeUnit.SECONDS);
            String line;
            try {
                line = in.readLine();
            } finally {
                kill.cancel(false);
            }
            if (line == null) {
                throw new IOException("load generator ended (" + Processes.tail(log, 2) + ")");
            }
            if (line.startsWith("ERROR ")) {
                throw new IOException(line.substring("ERROR ".length()));
            }
            if (!line.startsWith(what)) {
                throw new IOException("load generator said '" + line + "', expected " + what);
            }
            return line;
        }

        @Override
        public synchronized void close() {
            if (process != null) {
                Processes.stop(process);
                process = null;
            }
        }
    }
}
