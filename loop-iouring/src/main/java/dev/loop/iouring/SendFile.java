package dev.loop.iouring;

import io.netty.channel.DefaultFileRegion;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.Optional;

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
 * automatic module); the call goes through {@code java.lang.foreign}, final from JDK 22 and a
 * preview in 21, the release this project compiles for, so it is looked up reflectively once, as
 * {@link MallocTrim} is. Where either is missing (JDK 21, native access denied, Netty's package
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

                Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
                Class<?> lookupClass = Class.forName("java.lang.foreign.SymbolLookup");
                Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
                Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
                Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
                Class<?> pathClass = Class.forName("java.lang.foreign.MemoryLayout$PathElement");
                Class<?> valueLayoutClass = Class.forName("java.lang.foreign.ValueLayout");
                Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");

                Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
                Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
                Optional<?> symbol = (Optional<?>) lookupClass.getMethod("find", String.class).invoke(lookup, "sendfile");
                if (symbol.isPresent()) {
                    Object jInt = valueLayoutClass.getField("JAVA_INT").get(null);
                    Object jLong = valueLayoutClass.getField("JAVA_LONG").get(null);
                    Object address = valueLayoutClass.getField("ADDRESS").get(null);
                    Object args = Array.newInstance(layoutClass, 4);
                    Array.set(args, 0, jInt);
                    Array.set(args, 1, jInt);
                    Array.set(args, 2, address);
                    Array.set(args, 3, jLong);
                    Object descriptor = descriptorClass.getMethod("of", layoutClass, args.getClass())
                            .invoke(null, jLong, args);
                    Object capture = optionClass.getMethod("captureCallState", String[].class)
                            .invoke(null, (Object) new String[] {"errno"});
                    Object options = Array.newInstance(optionClass, 1);
                    Array.set(options, 0, capture);
                    MethodHandle handle = (MethodHandle) linkerClass
                            .getMethod("downcallHandle", segmentClass, descriptorClass, options.getClass())
                            .invoke(linker, symbol.get(), descriptor, options);
                    Object stateLayout = optionClass.getMethod("captureStateLayout").invoke(null);
                    Object errnoPath = Array.newInstance(pathClass, 1);
                    Array.set(errnoPath, 0, pathClass.getMethod("groupElement", String.class).invoke(null, "errno"));
                    errnoOffset = (int) (long) layoutClass.getMethod("byteOffset", errnoPath.getClass())
                            .invoke(stateLayout, errnoPath);
                    stateSize = (int) (long) layoutClass.getMethod("byteSize").invoke(stateLayout);
                    segmentOf = MethodHandles.publicLookup().findStatic(segmentClass, "ofBuffer",
                                    MethodType.methodType(segmentClass, java.nio.Buffer.class))
                            .asType(MethodType.methodType(Object.class, java.nio.Buffer.class));
                    sendfile = handle.asType(MethodType.methodType(long.class, Object.class, int.class, int.class,
                            Object.class, long.class));
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
