package dev.loop.iouring;

import dev.loop.spi.BackendProvider;
import dev.loop.spi.IoDriver;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code io_uring}: Linux io_uring through Netty's native io_uring transport, completion-based
 * (docs/adr/0011-completion-backends.md). Where it cannot run it says why: Netty's own reason
 * ({@code IoUring.unavailabilityCause()}: kernel too old, a seccomp filter refusing
 * {@code io_uring_setup}, the native library missing), preceded by the
 * {@code kernel.io_uring_disabled} setting when that is what refuses it.
 *
 * <p>Its priority sits below {@code epoll}: "best available" picks it only where epoll cannot
 * load, until the comparison measures it fastest on the machines it is meant for
 * (docs/BENCHMARKS.md).
 */
public final class IoUringBackendProvider implements BackendProvider {
    public static final String NAME = "io_uring";
    private static final Path DISABLED = Path.of("/proc/sys/kernel/io_uring_disabled");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 15;
    }

    @Override
    public Throwable unavailabilityCause() {
        Throwable sysctl = disabledBySysctl();
        if (sysctl != null) {
            return sysctl;
        }
        try {
            return io.netty.channel.uring.IoUring.isAvailable()
                    ? null : io.netty.channel.uring.IoUring.unavailabilityCause();
        } catch (LinkageError e) {
            return e; // Netty's classes or its native jar are not on the class path
        }
    }

    /**
     * {@code kernel.io_uring_disabled}: 0 allows io_uring, 1 allows it to members of
     * {@code kernel.io_uring_group} only (Netty then reports a bare EPERM), 2 refuses it to all.
     */
    private static Throwable disabledBySysctl() {
        try {
            String v = Files.readString(DISABLED).trim();
            if (v.equals("2")) {
                return new UnsupportedOperationException("io_uring is disabled on this machine: " + DISABLED + " is 2");
            }
            if (v.equals("1") && !io.netty.channel.uring.IoUring.isAvailable()) {
                return new UnsupportedOperationException("io_uring is limited to kernel.io_uring_group on this machine ("
                        + DISABLED + " is 1) and this process may not use it",
                        io.netty.channel.uring.IoUring.unavailabilityCause());
            }
            return null;
        } catch (java.io.IOException | LinkageError e) {
            return null; // an older kernel without the setting, or no Netty: the check below says why
        }
    }

    @Override
    public IoDriver newDriver() {
        return new IoUringDriver();
    }
}
