package dev.loop.examples;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Signals;
import dev.loop.Task;
import dev.loop.net.Connection;
import dev.loop.process.ChildProcess;
import dev.loop.process.ProcessOptions;
import dev.loop.process.Processes;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * {@code run [--timeout-ms N] [--backend NAME] -- COMMAND ARGS}: runs a program as a child of the
 * loop, streams its stdout and stderr to ours as they come (one task per pipe), and exits with its
 * status: 124 when the timeout ended it (as coreutils' {@code timeout} does), 127 when it could not
 * start. SIGTERM or Ctrl-C is passed on to the child as SIGTERM. The child's stdin is ours.
 *
 * <p>Printing to our own stdout is a blocking write, as in every example that prints; the child's
 * pipes are read on the loop without blocking it, and a child that writes faster than we print
 * waits in its own write.
 */
public final class RunCommand {
    /** How long a child may run without {@code --timeout-ms}. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    private RunCommand() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        int dashes = Arrays.asList(args).indexOf("--");
        if (dashes < 0 || dashes == args.length - 1) {
            err.println("usage: run [--timeout-ms N] [--backend NAME] -- COMMAND [ARGS]");
            return 2;
        }
        String[] mine = Arrays.copyOfRange(args, 0, dashes);
        List<String> command = List.of(Arrays.copyOfRange(args, dashes + 1, args.length));
        Duration timeout = Duration.ofMillis(Long.parseLong(Main.option(mine, "--timeout-ms",
                Long.toString(DEFAULT_TIMEOUT.toMillis()))));
        String backend = Main.option(mine, "--backend", null);
        LoopOptions lo = backend == null ? LoopOptions.defaults() : LoopOptions.defaults().withBackend(backend);
        ProcessOptions options = ProcessOptions.defaults().withStdin(Redirect.INHERIT).withTimeout(timeout);
        try (Loop loop = Loops.open(lo)) {
            ChildProcess child;
            try {
                child = Processes.exec(loop, command, options);
            } catch (IOException e) {
                err.println("run: " + e.getMessage());
                return 127;
            }
            Signals.SignalHandle term = Signals.on(loop, "TERM", child::terminate);
            Signals.SignalHandle intr = Signals.on(loop, "INT", child::terminate);
            try {
                Task<Long> copyOut = loop.spawn(() -> copy(child.stdout(), out));
                Task<Long> copyErr = loop.spawn(() -> copy(child.stderr(), err));
                Task<Integer> status = loop.spawn(() -> {
                    try {
                        int code = Async.await(child.exitCode(), TimeoutException.class);
                        Async.await(copyOut); // every byte printed before we say how it ended
                        Async.await(copyErr);
                        return code;
                    } catch (TimeoutException timedOut) {
                        err.println("run: " + timedOut.getMessage());
                        return 124;
                    }
                });
                return loop.runUntilComplete(status);
            } finally {
                term.remove();
                intr.remove();
                child.close();
            }
        }
    }

    /** Copies a child's pipe to {@code to} until its end; returns the bytes copied. */
    private static long copy(Connection from, PrintStream to) {
        ByteBuffer buf = ByteBuffer.allocate(16 * 1024);
        long total = 0;
        int n;
        while ((n = Async.await(from.read(buf.clear()))) >= 0) {
            to.write(buf.array(), 0, n);
            to.flush();
            total += n;
        }
        return total;
    }
}
