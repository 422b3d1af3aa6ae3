package dev.loop.iouring;

import dev.loop.linux.NativeCalls;
import io.netty.channel.DefaultFileRegion;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * The C library's {@code sendfile(2)}, called on the loop thread, and the descriptor of a JDK
 * {@code FileChannel} to call it with. Not thread-safe: each thread gets its own argument memory.
 *
 * <p>Why a direct call: io_uring has no send-from-file operation (Netty's io_uring channels splice
 * through a pipe, two operations per chunk and a pipe per file), and a completion backend still
 * owns a socket whose send buffer is empty, so a non-blocking {@code sendfile} on its descriptor
 * is one system call that copies nothing through user space, as on epoll.
 *
 * <p>How: the descriptor inside the JDK's channel is read by Netty's io_uring library (a
 * package-private method, reached through a private lookup: on the class path, or Netty as an
 * automatic module); the call goes through {@code java.lang.foreign}, linked once by
 * {@link NativeCalls}. Where either is missing (JDK 21, native access denied, Netty's package
 * closed) {@link #available()} is false and connections read the file instead.
 */
final class SendFile {
    /** {@code (Object errnoState, int out, int in, Object offsetPointer, long count) -> long}; null if unavailable. */
    private static final MethodHandle SENDFILE;
    /** {@code (DefaultFileRegion) -> int}: the file descriptor of the region's channel. */
    private static final MethodHandle GET_FD;
    /** {@code MemorySegment.ofBuffer(Buffer)}, to hand the call memory of a direct buffer. */
    private static final MethodHandle SEGMENT_OF;
    private static final int STATE_SIZE;
    private static final int ERRNO_OFFSET;
    private static final Class<?> JDK_FILE_CHANNEL;

    static {
        MethodHandle sendfile = null;
        MethodHandle getFd = null;
        MethodHandle segmentOf = null;
        int stateSize = 0;
        int errnoOffset = 0;
        Class<?> jdkFileChannel = null;
        try {
            if (Runtime.version().feature() >= 22 && System.getProperty("os.name", "").startsWith("Linux")) {
                Class<?> nativeClass = Class.forName("io.netty.channel.uring.Native");
                getFd = MethodHandles.privateLookupIn(nativeClass, MethodHandles.lookup())
                        .findStatic(nativeClass, "getFd", MethodType.methodType(int.class, DefaultFileRegion.class));
                jdkFileChannel = Class.forName("sun.nio.ch.FileChannelImpl");

                sendfile = NativeCalls.link("sendfile", MethodType.methodType(long.class, int.class, int.class,
                        Object.class, long.class), true).handle();
                if (sendfile != null) {
                    errnoOffset = NativeCalls.errnoOffset();
                    stateSize = NativeCalls.callStateSize();
                    segmentOf = NativeCalls.segmentOf();
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            sendfile = null;
        }
        SENDFILE = sendfile;
        GET_FD = sendfile == null ? null : getFd;
        SEGMENT_OF = segmentOf;
        STATE_SIZE = stateSize;
        ERRNO_OFFSET = errnoOffset;
        JDK_FILE_CHANNEL = jdkFileChannel;
    }

    /** The memory one thread's calls use: the offset {@code sendfile} reads and moves, and errno. */
    private static final ThreadLocal<Args> ARGS = ThreadLocal.withInitial(Args::new);

    private static final class Args {
        final ByteBuffer offset = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        final ByteBuffer state = ByteBuffer.allocateDirect(Math.max(STATE_SIZE, 8)).order(ByteOrder.nativeOrder());
        final Object offsetSegment;
        final Object stateSegment;

        Args() {
            try {
                offsetSegment = SEGMENT_OF.invokeExact((java.nio.Buffer) offset);
                stateSegment = SEGMENT_OF.invokeExact((java.nio.Buffer) state);
            } catch (Throwable t) {
                throw new IllegalStateException("cannot make argument memory for sendfile", t);
            }
        }
    }

    private SendFile() {
    }

    static boolean available() {
        return SENDFILE != null;
    }

    /**
     * The descriptor of {@code file}, a JDK channel, or -1 when it cannot be had (unavailable
     * here, or a channel of another kind).
     */
    static int descriptorOf(FileChannel file) {
        if (SENDFILE == null || file.getClass() != JDK_FILE_CHANNEL) {
            return -1;
        }
        try {
            // the region only carries the channel to the native code: never released, which would close it
            return (int) GET_FD.invokeExact(new DefaultFileRegion(file, 0, 0));
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * {@code sendfile(out, in, &position, count)} without retrying.
     *
     * @return bytes sent, or the negated errno
     */
    static long send(int out, int in, long position, long count) {
        Args a = ARGS.get();
        a.offset.putLong(0, position);
        long n;
        try {
            n = (long) SENDFILE.invokeExact(a.stateSegment, out, in, a.offsetSegment, count);
        } catch (Throwable t) {
            return -Ops.ECANCELED; // cannot happen once linked; reported as a failed call, never thrown
        }
        return n >= 0 ? n : -a.state.getInt(ERRNO_OFFSET);
    }
}
