package dev.loop.linux;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.Optional;

/**
 * The C library's {@code recvmmsg} and {@code sendmmsg}: many datagrams in one system call.
 *
 * <p>Why here: Netty's native library makes these calls only for its own datagram channels
 * ({@code Native.recvmmsg} and the packet array it takes are package-private), so the loop's UDP
 * sockets, which use Netty's public socket calls, would otherwise make one {@code recvfrom} and
 * one {@code sendto} per datagram.
 *
 * <p>How: through {@code java.lang.foreign}, final from JDK 22 and a preview API in 21, the release
 * this project compiles for; so it is looked up reflectively, once, and is absent on 21, on a C
 * library without the calls, and where native access is denied: the sockets then make one call
 * per datagram, as before. The pointers are passed as 64-bit integers (Linux on 64-bit x86 and
 * ARM passes both the same way), so the handles take only primitives and no foreign type is
 * named at compile time. {@code errno} is not captured: a call that fails is made again for its
 * first datagram with Netty's single-datagram call, which names the error (and finds "nothing
 * waiting" without an exception).
 */
final class Mmsg {
    /** {@code int recvmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags, struct timespec *timeout)}. */
    private static final MethodHandle RECVMMSG;
    /** {@code int sendmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags)}. */
    private static final MethodHandle SENDMMSG;

    static {
        MethodHandle recv = null;
        MethodHandle send = null;
        if (Runtime.version().feature() >= 22 && System.getProperty("os.name", "").startsWith("Linux")
                && "64".equals(System.getProperty("sun.arch.data.model")) && !Boolean.getBoolean("dev.loop.noMmsg")) {
            recv = lookUp("recvmmsg", 5);
            send = lookUp("sendmmsg", 4);
            if (recv == null || send == null) {
                recv = send = null;
            }
        }
        RECVMMSG = recv;
        SENDMMSG = send;
    }

    private Mmsg() {
    }

    /** Whether both calls can be made here. */
    static boolean available() {
        return RECVMMSG != null;
    }

    /** Receives up to {@code vlen} datagrams without waiting; the count, or -1 (errno not kept). */
    static int recvmmsg(int fd, long vec, int vlen) {
        try {
            return (int) RECVMMSG.invokeExact(fd, vec, vlen, MSG_DONTWAIT, 0L);
        } catch (Throwable t) {
            return -1;
        }
    }

    /** Sends up to {@code vlen} datagrams; how many the kernel took, or -1 (errno not kept). */
    static int sendmmsg(int fd, long vec, int vlen) {
        try {
            return (int) SENDMMSG.invokeExact(fd, vec, vlen, MSG_DONTWAIT);
        } catch (Throwable t) {
            return -1;
        }
    }

    private static final int MSG_DONTWAIT = 0x40;

    /** {@code int name(int, long, int, int[, long])} as a handle of primitives; null when unavailable. */
    private static MethodHandle lookUp(String name, int arity) {
        try {
            Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
            Class<?> lookupClass = Class.forName("java.lang.foreign.SymbolLookup");
            Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> valueLayoutClass = Class.forName("java.lang.foreign.ValueLayout");
            Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");

            Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
            Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
            Optional<?> symbol = (Optional<?>) lookupClass.getMethod("find", String.class).invoke(lookup, name);
            if (symbol.isEmpty()) {
                return null;
            }
            Object intLayout = valueLayoutClass.getField("JAVA_INT").get(null);
            Object longLayout = valueLayoutClass.getField("JAVA_LONG").get(null);
            Object layouts = Array.newInstance(layoutClass, arity);
            Class<?>[] params = new Class<?>[arity];
            for (int i = 0; i < arity; i++) {
                boolean pointer = i == 1 || i == 4; // the vector, the timeout
                Array.set(layouts, i, pointer ? longLayout : intLayout);
                params[i] = pointer ? long.class : int.class;
            }
            Object descriptor = descriptorClass.getMethod("of", layoutClass, layouts.getClass())
                    .invoke(null, intLayout, layouts);
            Object noOptions = Array.newInstance(optionClass, 0);
            MethodHandle handle = (MethodHandle) linkerClass
                    .getMethod("downcallHandle", segmentClass, descriptorClass, noOptions.getClass())
                    .invoke(linker, symbol.get(), descriptor, noOptions);
            return handle.asType(MethodType.methodType(int.class, params));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }
}
