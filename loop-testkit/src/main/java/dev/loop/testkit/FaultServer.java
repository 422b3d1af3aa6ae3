package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An echo server in a process of its own, for faults that take a whole process:
 * {@link OpenFileLimitContract} starts it under a low open-file limit and fills that limit from
 * outside. It is what an operator runs: the default exception handler (logging to standard error), one loop, push-style echo.
 *
 * <pre>
 * java [the suite's JVM flags] -cp [its class path] dev.loop.testkit.FaultServer BACKEND [quiet]
 * </pre>
 * prints {@code listening PORT} on standard output once it accepts, then runs until killed. It
 * logs one line when it starts, as servers do, which sets up logging while descriptors are left;
 * {@code quiet} skips that, so the first record has to be written at the limit.
 */
public final class FaultServer {
    private FaultServer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2 || (args.length == 2 && !args[1].equals("quiet"))) {
            System.err.println("usage: FaultServer BACKEND [quiet]");
            System.exit(2);
        }
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(args[0]))) {
            Server server = Net.listen(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    c -> c.setHandler((conn, data) -> conn.write(data)));
            // One round trip before saying so: the classes of the connection path are loaded while
            // descriptors are left to load them with.
            LoopFuture<Connection> self = Net.connect(loop, server.localAddress());
            Connection c = loop.runUntilComplete(self);
            c.write(new byte[] {42});
            ByteBuffer back = ByteBuffer.allocate(1);
            loop.runUntilComplete(c.read(back));
            loop.runUntilComplete(c.close());
            if (args.length == 1) {
                // as a server would, it says so in its log: the logging setup is done before the limit
                System.getLogger("dev.loop.testkit").log(System.Logger.Level.INFO, "echo server listening on " + server.localAddress());
            }
            System.out.println("listening " + server.localAddress().getPort());
            System.out.flush();
            loop.runForever();
        }
    }

    // ------------------------------------------------------------------ the parent's side

    /** A started child and what it printed on standard error. */
    static final class Child implements AutoCloseable {
        final Process process;
        final int port;
        final List<String> stderr;

        private Child(Process process, int port, List<String> stderr) {
            this.process = process;
            this.port = port;
            this.stderr = stderr;
        }

        /**
         * Starts the server on {@code backend} with the open-file limit (soft and hard) at
         * {@code nofile}, with this JVM's executable, flags and class path; {@code quiet}: nothing
         * logged at start.
         */
        static Child start(String backend, int nofile, boolean quiet) throws IOException, InterruptedException {
            String javaCmd = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            List<String> cmd = new ArrayList<>(List.of("sh", "-c", "ulimit -n " + nofile + " && exec \"$0\" \"$@\"", javaCmd));
            for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (!flag.startsWith("-agentlib:jdwp") && !flag.startsWith("-javaagent")) {
                    cmd.add(flag);
                }
            }
            cmd.addAll(List.of("-cp", cp, FaultServer.class.getName(), backend));
            if (quiet) {
                cmd.add("quiet");
            }
            return launch(cmd);
        }

        /**
         * Runs {@code cmd}, a JVM running {@link FaultServer}, and waits (a minute at most) for it to
         * say which port it listens on; what it writes on standard error is kept.
         */
        static Child launch(List<String> cmd) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(cmd).start();
            List<String> err = new CopyOnWriteArrayList<>(); // read while the child writes
            Thread.ofVirtual().start(() -> p.errorReader().lines().forEach(err::add));
            var out = p.inputReader();
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            String line;
            try {
                line = first.get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
                throw new AssertionError("the child server did not start: " + err, e);
            }
            if (line == null || !line.startsWith("listening ")) {
                p.waitFor(5, TimeUnit.SECONDS);
                throw new AssertionError("the child server did not start (" + line + "): " + String.join("\n", err));
            }
            Thread.ofVirtual().start(() -> out.lines().forEach(l -> { }));
            return new Child(p, Integer.parseInt(line.substring("listening ".length()).trim()), err);
        }

        /** Descriptors the child has open. */
        long fds() throws IOException {
            try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
                return s.count();
            }
        }

        /** CPU time the child used so far, in clock ticks (user + system, from /proc/PID/stat). */
        long cpuTicks() throws IOException {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            // the command name in parentheses may hold spaces: count fields after its closing one
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime and stime, fields 14 and 15
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
