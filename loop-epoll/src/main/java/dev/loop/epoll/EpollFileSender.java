package dev.loop.epoll;

import dev.loop.linux.NativeErrors;
import dev.loop.spi.IoFileSender;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.epoll.LinuxSocket;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/**
 * {@code sendfile(2)} from one file to one epoll socket. Not thread-safe: loop thread only.
 *
 * <p>Netty's native library has the call, and finds the file's descriptor inside the JDK's
 * {@code FileChannel} itself (JNI reads fields no module rule guards), but only as a private
 * method of {@link LinuxSocket} taking a {@link DefaultFileRegion}; it is found once, at start-up,
 * through a private lookup, which works where Netty's package is open to this module (the class
 * path, or Netty as an automatic module). Where it is not, or for a {@code FileChannel} that is
 * not the JDK's own (whose descriptor the native code would look for in the wrong place),
 * {@link #of} answers null and the connection reads the file instead.
 *
 * <p>The region is Netty's only way to hand the channel over: it is made once per file sent and
 * never released, since releasing it would close the caller's channel.
 */
final class EpollFileSender implements IoFileSender {
    /** {@code long sendFile(int fd, DefaultFileRegion src, long baseOffset, long offset, long length)}; null if unreachable. */
    private static final MethodHandle SEND_FILE = lookUp();
    /** The JDK's own {@code FileChannel} class ({@code sun.nio.ch.FileChannelImpl}); null if not found. */
    private static final Class<?> JDK_FILE_CHANNEL = jdkFileChannel();
    private static final int EAGAIN = SocketErrors.EAGAIN;

    private final LinuxSocket socket;
    private final FileChannel file;
    private final DefaultFileRegion region;

    private EpollFileSender(LinuxSocket socket, FileChannel file) {
        this.socket = socket;
        this.file = file;
        this.region = new DefaultFileRegion(file, 0, Long.MAX_VALUE);
    }

    /** A sender of {@code file} to {@code socket}, or null where this way is not available for it. */
    static IoFileSender of(LinuxSocket socket, FileChannel file) {
        if (SEND_FILE == null || file.getClass() != JDK_FILE_CHANNEL) {
            return null;
        }
        return new EpollFileSender(socket, file);
    }

    /** Whether {@code sendfile(2)} is reachable here (for tests and the start-up report). */
    static boolean available() {
        return SEND_FILE != null;
    }

    @Override
    public long sendFile(FileChannel f, long position, long count) throws IOException {
        if (f != file) {
            throw new IllegalArgumentException("this sender sends " + file + ", not " + f);
        }
        if (!file.isOpen()) {
            throw new ClosedChannelException(); // the descriptor may already be another file's
        }
        long res;
        try {
            res = (long) SEND_FILE.invokeExact(socket.intValue(), region, position, 0L, count);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("sendfile failed", t);
        }
        if (res > 0) {
            return res;
        }
        if (res == 0) {
            return -1; // nothing at position: the file ends there
        }
        if (res == -EAGAIN) {
            return 0;
        }
        throw NativeErrors.ofResult(Call.IO, (int) res, null);
    }

    private static MethodHandle lookUp() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(LinuxSocket.class, MethodHandles.lookup());
            return lookup.findStatic(LinuxSocket.class, "sendFile", MethodType.methodType(long.class, int.class,
                    DefaultFileRegion.class, long.class, long.class, long.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static Class<?> jdkFileChannel() {
        try {
            return Class.forName("sun.nio.ch.FileChannelImpl");
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }
}
