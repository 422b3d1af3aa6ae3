package dev.loop.process;

import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.stream.StreamConnection;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Child processes on a loop (asyncio's {@code create_subprocess_exec}): their stdin, stdout and
 * stderr as the loop's {@link Connection}s, their exit as a future.
 *
 * <pre>{@code
 * ChildProcess p = Processes.exec(loop, List.of("sort"), ProcessOptions.defaults());
 * Async.await(p.stdin().write(bytes));       // in a task; drain() for backpressure
 * p.stdin().shutdownOutput();                 // end of input
 * String first = Async.await(p.stdout().readLine(1024));
 * int status = Async.await(p.exitCode());
 * }</pre>
 *
 * <p>It is the JDK's {@link Process} on every backend, with one small platform thread per pipe in
 * use (from its first read or write) that blocks in the pipe's reads or writes and hands chunks to the loop with credit: the loop
 * never blocks on a child, and a child whose output nobody reads blocks in its own write. The exit
 * comes from {@link Process#onExit()}. Why, and what it costs: docs/adr/0016-subprocesses.md.
 */
public final class Processes {

    private Processes() {
    }

    /** {@link #exec(Loop, List, ProcessOptions)} with the defaults: all three streams piped. */
    public static ChildProcess exec(Loop loop, String... command) throws IOException {
        return exec(loop, List.of(command), ProcessOptions.defaults());
    }

    /**
     * Starts {@code command} (the program, then its arguments; no shell) as a child of this
     * process. The start itself (the JDK's {@code posix_spawn} of a helper that execs the program)
     * runs on the calling thread and returns once the program runs, as asyncio's does; nothing
     * after it waits on the child. Call it on the loop thread, or on any thread while the loop is
     * not running, as for sockets.
     *
     * @throws IOException naming the command if it cannot be started (no such program, not executable,
     *                     no such directory)
     * @throws IllegalStateException if called on another thread while the loop runs
     */
    public static ChildProcess exec(Loop loop, List<String> command, ProcessOptions options) throws IOException {
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(options, "options");
        List<String> cmd = List.copyOf(command);
        if (cmd.isEmpty()) {
            throw new IllegalArgumentException("an empty command: name the program to run");
        }
        if (!loop.inLoop() && loop.isRunning()) {
            throw new IllegalStateException("Processes.exec on thread " + Thread.currentThread().getName() + " while " + loop
                    + " runs on another thread: start children on the loop thread (loop.callSoon, or a task of the loop)");
        }
        NetRegistry net = NetRegistry.of(loop);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (options.directory() != null) {
            pb.directory(options.directory().toFile());
        }
        Map<String, String> env = pb.environment();
        if (options.clearEnvironment()) {
            env.clear();
        }
        env.putAll(options.environment());
        pb.redirectInput(options.stdin());
        pb.redirectOutput(options.stdout());
        pb.redirectErrorStream(options.mergeStderr());
        if (!options.mergeStderr()) {
            pb.redirectError(options.stderr());
        }
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new IOException("cannot start " + cmd + (options.directory() == null ? "" : " in " + options.directory())
                    + ": " + e.getMessage(), e);
        }
        long pid = process.pid();
        int chunk = options.chunkSize();
        Connection in = null;
        Connection out = null;
        Connection err = null;
        if (options.stdin().type() == Redirect.Type.PIPE) {
            in = connection(net, options, new PipeSink(loop, process.getOutputStream(), new PipeAddress(pid, "stdin"), chunk),
                    new PipeAddress(pid, "stdin"));
        }
        if (options.stdout().type() == Redirect.Type.PIPE) {
            PipeAddress a = new PipeAddress(pid, "stdout");
            PipeSource s = new PipeSource(loop, process.getInputStream(), a, chunk);
            out = connection(net, options, s, a);
        }
        if (!options.mergeStderr() && options.stderr().type() == Redirect.Type.PIPE) {
            PipeAddress a = new PipeAddress(pid, "stderr");
            PipeSource s = new PipeSource(loop, process.getErrorStream(), a, chunk);
            err = connection(net, options, s, a);
        }
        ChildProcess child = new ChildProcess(loop, net, process, cmd, options, in, out, err);
        child.watch();
        return child;
    }

    private static Connection connection(NetRegistry net, ProcessOptions options, IoTransport pipe, PipeAddress address) {
        StreamConnection c = new StreamConnection(net, options.streams(), null, address, address);
        c.opened(pipe);
        return c;
    }
}
