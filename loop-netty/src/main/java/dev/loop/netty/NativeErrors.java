package dev.loop.netty;

import io.netty.channel.unix.Errors;
import java.net.BindException;

/** Netty's native errors turned into the JDK's exceptions, naming what failed. */
public final class NativeErrors {
    /** Linux's errno for "address already in use" (the native backends run on Linux only). */
    private static final int EADDRINUSE = 98;

    private NativeErrors() {
    }

    /** A failed bind as a {@link BindException} naming the address, the kernel's reason kept. */
    public static BindException bindFailed(Errors.NativeIoException e, Object address) {
        String why = e.expectedErr() == -EADDRINUSE ? "Address already in use" // Netty keeps the negated errno
                : String.valueOf(e.getMessage()).replaceFirst("^bind\\(\\.\\.\\) failed: ", "");
        BindException named = new BindException(why + ": " + address);
        named.initCause(e);
        return named;
    }
}
