package dev.loop.process;

import java.io.Serial;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * What a child process's pipe is called where a connection has an address
 * ({@link dev.loop.net.Connection#localSocketAddress()}, messages): the process id and which of
 * its standard streams. Immutable.
 */
public final class PipeAddress extends SocketAddress {
    @Serial
    private static final long serialVersionUID = 1L;

    private final long pid;
    private final String pipe;

    PipeAddress(long pid, String pipe) {
        this.pid = pid;
        this.pipe = Objects.requireNonNull(pipe, "pipe");
    }

    /** The child's process id. */
    public long pid() {
        return pid;
    }

    /** {@code "stdin"}, {@code "stdout"} or {@code "stderr"}. */
    public String pipe() {
        return pipe;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PipeAddress p && p.pid == pid && p.pipe.equals(pipe);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(pid) * 31 + pipe.hashCode();
    }

    @Override
    public String toString() {
        return pipe + " of process " + pid;
    }
}
