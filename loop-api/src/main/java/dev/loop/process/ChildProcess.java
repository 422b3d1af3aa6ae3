package dev.loop.process;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.Connection;
import dev.loop.net.transport.NetRegistry;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * A child process started by {@link Processes#exec}, owned by a loop: its standard streams as the
 * loop's {@link Connection}s and its exit as a {@link LoopFuture}. The streams follow the
 * connection's thread rule (loop thread, or any thread while the loop is not running); the
 * signals ({@link #terminate()}, {@link #kill()}) and the queries may be used from any thread.
 *
 * <p>{@link #stdin()} is write-only (its reads see end of stream at once): {@code write},
 * {@code drain} and {@code shutdownOutput()} or {@code close()} to send end of input.
 * {@link #stdout()} and {@link #stderr()} are read-only ({@code read}, {@code readLine},
 * {@code readExactly}, {@code readUntil}, or a push handler; a write fails). Each is null where
 * the options did not ask for a pipe. Output nobody reads is not read from the pipe: the child
 * blocks when the pipe is full, the loop does not.
 *
 * <p>Each piped output that is read has a pump thread (from its first read) that holds the last
 * chunk read until the loop takes it:
 * read the output to its end, or {@link #close()} the handle (or the streams) when done with it,
 * else the pump and its buffer stay until the loop closes. A child that exited has no more
 * descriptors of ours open either way (the JDK drains and closes its pipes at exit).
 */
public final class ChildProcess implements NetRegistry.Owned, AutoCloseable {
    private final Loop loop;
    private final NetRegistry net;
    private final Process process;
    private final List<String> command;
    private final ProcessOptions options;
    private final Connection stdin;
    private final Connection stdout;
    private final Connection stderr;
    private final Promise<Integer> exitCode;
    private TimerHandle timeoutTimer;   // loop thread
    private TimerHandle killTimer;      // loop thread
    private boolean timedOut;           // loop thread
    private boolean exited;             // loop thread

    ChildProcess(Loop loop, NetRegistry net, Process process, List<String> command, ProcessOptions options,
                 Connection stdin, Connection stdout, Connection stderr) {
        this.loop = loop;
        this.net = net;
        this.process = process;
        this.command = command;
        this.options = options;
        this.stdin = stdin;
        this.stdout = stdout;
        this.stderr = stderr;
        this.exitCode = loop.newPromise();
    }

    /** Called once by {@link Processes#exec} on the loop thread (or before the loop runs). */
    void watch() {
        net.add(this);
        if (!options.timeout().isZero()) {
            timeoutTimer = loop.callLater(options.timeout(), this::timedOut);
        }
        exitCode.onDone(f -> {
            if (f.isCancelled() && !exited) {
                abandoned();
            }
        });
        process.onExit().whenComplete((p, e) -> {
            try {
                loop.callSoon(this::exited);
            } catch (RejectedExecutionException loopClosed) {
                // the loop closed first: loopClosing already dealt with the child
            }
        });
    }

    // ------------------------------------------------------------------ the streams

    /** The child's stdin, write-only; null unless the options pipe it (the default). */
    public Connection stdin() {
        return stdin;
    }

    /** The child's stdout (with its stderr when merged), read-only; null unless piped. */
    public Connection stdout() {
        return stdout;
    }

    /** The child's stderr, read-only; null when merged into stdout or not piped. */
    public Connection stderr() {
        return stderr;
    }

    // ------------------------------------------------------------------ the process

    /** The child's process id. */
    public long pid() {
        return process.pid();
    }

    /** The command it was started with. */
    public List<String> command() {
        return command;
    }

    /** True until the child has exited. Any thread. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Completes on the loop with the child's exit status once it has exited: its own status, or
     * 128 plus the signal's number when a signal ended it (as the JDK reports it: 143 after
     * {@code SIGTERM}, 137 after {@code SIGKILL}). Fails with a {@link TimeoutException} naming the
     * command if the options' timeout ended it. The same future on every call: cancelling it, or
     * the task awaiting it, abandons the child (killed, or left running: {@link ProcessOptions#onAbandon()}).
     */
    public LoopFuture<Integer> exitCode() {
        return exitCode;
    }

    /** Asks the child to stop: {@code SIGTERM} on Unix. Any thread; nothing once it has exited. */
    public void terminate() {
        process.destroy();
    }

    /** Stops the child at once: {@code SIGKILL} on Unix. Any thread; nothing once it has exited. */
    public void kill() {
        process.destroyForcibly();
    }

    /** The JDK's handle, for what this class does not offer (children of the child, {@code info()}). */
    public ProcessHandle toHandle() {
        return process.toHandle();
    }

    /**
     * Closes our ends of the child's pipes (unread output is dropped, so its pumps end); a child
     * still running is abandoned as the options say ({@link ProcessOptions.Abandon#KILL} by
     * default). Loop thread, as for the streams. Idempotent.
     */
    @Override
    public void close() {
        if (!exited) {
            abandoned();
        } else {
            closeStreams();
        }
    }

    // ------------------------------------------------------------------ loop thread

    private void timedOut() {
        timeoutTimer = null;
        if (exited) {
            return;
        }
        timedOut = true;
        terminate();
        killTimer = loop.callLater(options.killGrace(), this::kill);
    }

    private void exited() {
        if (exited) {
            return;
        }
        exited = true;
        net.remove(this);
        cancelTimers();
        int code = process.exitValue();
        if (timedOut) {
            TimeoutException t = new TimeoutException(command + " (pid " + pid() + ") did not exit within "
                    + options.timeout().toMillis() + " ms: terminated, exit status " + code);
            exitCode.tryFail(t);
        } else {
            exitCode.tryComplete(code);
        }
    }

    /** Nobody waits for the child any more: kill it or let it go, and close our ends of its pipes. */
    private void abandoned() {
        cancelTimers();
        if (options.onAbandon() == ProcessOptions.Abandon.KILL) {
            kill();
        } else {
            net.remove(this);
        }
        // A detached child keeps running without us; a killed one needs its pipes no more. Either
        // way our ends close so the pumps end with the pipes (for a detached child: at its next
        // write to them, or its exit).
        closeStreams();
    }

    private void closeStreams() {
        for (Connection c : new Connection[] {stdin, stdout, stderr}) {
            if (c != null) {
                c.abort();
            }
        }
    }

    private void cancelTimers() {
        if (timeoutTimer != null) {
            timeoutTimer.cancel();
            timeoutTimer = null;
        }
        if (killTimer != null) {
            killTimer.cancel();
            killTimer = null;
        }
    }

    @Override
    public void loopClosing(IOException why) {
        // the connections close with the loop on their own; the child is abandoned with it
        if (!exited) {
            cancelTimers();
            if (options.onAbandon() == ProcessOptions.Abandon.KILL) {
                kill();
            }
            exitCode.tryFail(new IOException("the loop closed before " + command + " (pid " + pid() + ") exited: "
                    + (options.onAbandon() == ProcessOptions.Abandon.KILL ? "killed" : "left running"), why));
        }
    }

    @Override
    public String toString() {
        return "ChildProcess[pid " + pid() + ", " + command + (exited ? ", exited" : "") + "]";
    }
}
