package dev.loop.process;

import java.io.Closeable;
import java.io.IOException;

/** What the pipe pumps share. */
final class Pumps {
    /**
     * A pump's stack: it only copies between a stream and one buffer, so a small stack does; 1,000
     * children with three pipes each then reserve 0.4 GB of address space less than with the default.
     */
    static final long STACK = 128 * 1024;

    private Pumps() {
    }

    /**
     * Starts {@code pump} on a daemon platform thread named after its pipe: a daemon, since a child
     * that never closes its pipe must not keep the JVM alive; a platform thread, since it blocks in
     * the JDK's pipe streams, which cannot be polled.
     */
    static void start(PipeAddress address, Runnable pump) {
        Thread.ofPlatform().daemon().name("loop-" + address.pipe() + "-" + address.pid()).stackSize(STACK).start(pump);
    }

    /** Closes {@code c}; a failure to close a pipe leaves nothing to do (the descriptor is released either way). */
    static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // the JDK releases the descriptor even when close reports an error
        }
    }
}
