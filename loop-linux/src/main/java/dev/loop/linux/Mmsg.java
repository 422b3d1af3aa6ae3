package dev.loop.linux;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/**
 * The C library's {@code recvmmsg} and {@code sendmmsg}: many datagrams in one system call.
 *
 * <p>Why here: Netty's native library makes these calls only for its own datagram channels
 * ({@code Native.recvmmsg} and the packet array it takes are package-private), so the loop's UDP
 * sockets, which use Netty's public socket calls, would otherwise make one {@code recvfrom} and
 * one {@code sendto} per datagram.
 *
 * <p>How: through {@code java.lang.foreign}, linked once by {@link NativeCalls}, and absent on JDK
 * 21, on a C library without the calls, and where native access is denied: the sockets then make
 * one call per datagram, as before. The pointers are passed as 64-bit integers (Linux on 64-bit
 * x86 and ARM passes both the same way), so the handles take only primitives. {@code errno} is not captured: a call that fails is made again for its
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
        if ("64".equals(System.getProperty("sun.arch.data.model")) && !Boolean.getBoolean("dev.loop.noMmsg")) {
            recv = NativeCalls.link("recvmmsg",
                    MethodType.methodType(int.class, int.class, long.class, int.class, int.class, long.class), false).handle();
            send = NativeCalls.link("sendmmsg",
                    MethodType.methodType(int.class, int.class, long.class, int.class, int.class), false).handle();
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
}
