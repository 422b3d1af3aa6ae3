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

    /** Closes {@code c}; a failure to close a pipe leaves nothing to do (the descriptor is released either way). */
    static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // the JDK releases the descriptor even when close reports an error
        }
    }
}
