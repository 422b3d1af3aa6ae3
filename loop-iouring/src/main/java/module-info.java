/**
 * Backend {@code io_uring}: Linux io_uring through Netty's native io_uring transport, driven by the
 * loop's own iteration, completion-based below the socket SPI. On the module path, Netty's native
 * jar ({@code io.netty.transport.io_uring.linux.x86_64}) must be resolved too
 * ({@code --add-modules}) for the backend to be available.
 */
module dev.loop.iouring {
    requires dev.loop;
    requires dev.loop.linux;
    requires io.netty.common;
    requires io.netty.transport;
    requires io.netty.transport.unix.common;
    requires io.netty.transport.classes.io_uring;

    provides dev.loop.spi.BackendProvider with dev.loop.iouring.IoUringBackendProvider;
}
