/**
 * The Linux native socket layer that both native backends (epoll, io_uring) build on, currently
 * over Netty's native library: a Netty {@code IoHandler} driven from the
 * loop's own iteration ({@link dev.loop.linux.PollContext}, {@link dev.loop.linux.LoopThreadExecutor}),
 * and on Netty's native sockets: options ({@link dev.loop.linux.NativeSocketOptions}), the calls of
 * a UDP socket ({@link dev.loop.linux.NativeDatagram}) and Unix domain sockets
 * ({@link dev.loop.linux.NativeUnixIo}). For the backends only; not an API.
 */
module dev.loop.linux {
    requires transitive dev.loop;
    requires transitive io.netty.common;
    requires transitive io.netty.transport;
    requires transitive io.netty.transport.unix.common;

    exports dev.loop.linux;
}
