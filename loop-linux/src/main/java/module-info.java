/**
 * The Linux native socket layer that both native backends (epoll, io_uring) build on, currently
 * over Netty's native library: a Netty {@code IoHandler} driven from the loop's own iteration
 * ({@link dev.loop.linux.NettyDriver}, {@link dev.loop.linux.PollContext},
 * {@link dev.loop.linux.LoopThreadExecutor}); the socket calls every backend makes the same way
 * ({@link dev.loop.linux.NativeNetIo}, {@link dev.loop.linux.NativeAccept},
 * {@link dev.loop.linux.NativeStreams}); options ({@link dev.loop.linux.NativeSocketOptions}),
 * error numbers as the JDK's exceptions ({@link dev.loop.linux.NativeErrors}), the calls of a UDP
 * socket ({@link dev.loop.linux.NativeDatagram}) and Unix domain sockets
 * ({@link dev.loop.linux.NativeUnixIo}). For the backends only; not an API.
 */
module dev.loop.linux {
    requires transitive dev.loop;
    requires transitive io.netty.common;
    requires transitive io.netty.transport;
    requires transitive io.netty.transport.unix.common;

    exports dev.loop.linux;
}
