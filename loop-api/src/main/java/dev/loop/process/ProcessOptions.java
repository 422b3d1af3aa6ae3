package dev.loop.process;

import dev.loop.net.ConnectionOptions;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link Processes#exec} starts a child. Immutable; start from {@link #defaults()}.
 *
 * @param directory   the child's working directory; null: this process's
 * @param environment variables to set on top of this process's environment, or of an empty one
 *                    with {@code clearEnvironment}
 * @param clearEnvironment start from an empty environment instead of this process's
 * @param stdin       where the child's stdin comes from: {@link Redirect#PIPE} (the default: the
 *                    handle's {@code stdin()} connection), {@link Redirect#INHERIT}, a file
 * @param stdout      where the child's stdout goes: {@link Redirect#PIPE} (the default: the
 *                    handle's {@code stdout()}), {@link Redirect#INHERIT}, {@link Redirect#DISCARD},
 *                    a file
 * @param stderr      the same for stderr; ignored with {@code mergeStderr}
 * @param mergeStderr the child's stderr goes where its stdout goes (one stream, as {@code 2>&1})
 * @param timeout     after this the child is terminated ({@code SIGTERM}), then killed after
 *                    {@code killGrace}, and {@code exitCode()} fails with a
 *                    {@link java.util.concurrent.TimeoutException}; zero: none
 * @param killGrace   how long {@link ChildProcess#terminate()} on a timeout gives the child before
 *                    {@code SIGKILL}
 * @param onAbandon   what happens to a running child when nobody waits any more: its
 *                    {@code exitCode()} future was cancelled (directly, or by cancelling the task
 *                    awaiting it, or a timeout around it), or its loop closed
 * @param streams     the options of the three connections (watermarks, read buffer size, read
 *                    timeout); socket options in it do not apply
 * @param chunkSize   the bytes one pipe moves per hand-over between its pump thread and the loop
 *                    (32 KiB: half of a Linux pipe's default capacity)
 */
public record ProcessOptions(Path directory, Map<String, String> environment, boolean clearEnvironment,
                             Redirect stdin, Redirect stdout, Redirect stderr, boolean mergeStderr,
                             Duration timeout, Duration killGrace, Abandon onAbandon,
                             ConnectionOptions streams, int chunkSize) {

    /** What to do with a running child nobody waits for any more. */
    public enum Abandon {
        /** {@code SIGKILL} it (the default): a cancelled task leaves no child behind. */
        KILL,
        /** Leave it running; its pipes are closed, so it sees end of input and a broken output pipe. */
        DETACH
    }

    /** The largest chunk: each pipe holds one buffer of this size for its whole life. */
    public static final int MAX_CHUNK = 1 << 20;

    public ProcessOptions {
        environment = Map.copyOf(environment);
        Objects.requireNonNull(stdin, "stdin");
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        Objects.requireNonNull(onAbandon, "onAbandon");
        Objects.requireNonNull(streams, "streams");
        if (timeout.isNegative() || killGrace.isNegative()) {
            throw new IllegalArgumentException("timeout and killGrace must not be negative: " + timeout + ", " + killGrace);
        }
        if (chunkSize < 1 || chunkSize > MAX_CHUNK) {
            throw new IllegalArgumentException("chunkSize must be 1.." + MAX_CHUNK + ": " + chunkSize);
        }
    }

    /** Pipes for all three streams, this process's directory and environment, no timeout. */
    public static ProcessOptions defaults() {
        return new ProcessOptions(null, Map.of(), false, Redirect.PIPE, Redirect.PIPE, Redirect.PIPE, false,
                Duration.ZERO, Duration.ofSeconds(2), Abandon.KILL, ConnectionOptions.defaults(), 32 * 1024);
    }

    public ProcessOptions withDirectory(Path dir) {
        return new ProcessOptions(dir, environment, clearEnvironment, stdin, stdout, stderr, mergeStderr, timeout, killGrace, onAbandon, streams, chunkSize);
    }

    /** Adds {@code name=value} to the child's environment. */
    public ProcessOptions withEnv(String name, String value) {
        Map<String, String> env = new LinkedHashMap<>(environment);
        env.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return new ProcessOptions(directory, env, clearEnvironment, stdin, stdout, stderr, mergeStderr, timeout, killGrace, onAbandon, streams, chunkSize);
    }

    /** The child starts with only the variables given with {@link #withEnv}. */
    public ProcessOptions withClearEnvironment(boolean clear) {
        return new ProcessOptions(directory, environment, clear, stdin, stdout, stderr, mergeStderr, timeout, killGrace, onAbandon, streams, chunkSize);
    }

    public ProcessOptions withStdin(Redirect r) {
        return new ProcessOptions(directory, environment, clearEnvironment, r, stdout, stderr, mergeStderr, timeout, killGrace, onAbandon, streams, chunkSize);
    }

    public ProcessOptions withStdout(Redirect r) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, r, stderr, mergeStderr, timeout, killGrace, onAbandon, streams, chunkSize);
    }

    public ProcessOptions withStderr(Redirect r) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, stdout, r, mergeStderr, timeout, killGrace, onAbandon, streams, chunkSize);
    }

    /** The child's stderr goes to its stdout ({@code 2>&1}); the handle then has no {@code stderr()}. */
    public ProcessOptions withMergedStderr(boolean merge) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, stdout, stderr, merge, timeout, killGrace, onAbandon, streams, chunkSize);
    }

    public ProcessOptions withTimeout(Duration d) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, stdout, stderr, mergeStderr, d, killGrace, onAbandon, streams, chunkSize);
    }

    public ProcessOptions withKillGrace(Duration d) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, stdout, stderr, mergeStderr, timeout, d, onAbandon, streams, chunkSize);
    }

    public ProcessOptions withOnAbandon(Abandon a) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, stdout, stderr, mergeStderr, timeout, killGrace, a, streams, chunkSize);
    }

    public ProcessOptions withStreams(ConnectionOptions o) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, stdout, stderr, mergeStderr, timeout, killGrace, onAbandon, o, chunkSize);
    }

    public ProcessOptions withChunkSize(int bytes) {
        return new ProcessOptions(directory, environment, clearEnvironment, stdin, stdout, stderr, mergeStderr, timeout, killGrace, onAbandon, streams, bytes);
    }
}
