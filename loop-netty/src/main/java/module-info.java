/**
 * What the backends on Netty's native transports share: a Netty {@code IoHandler} driven from the
 * loop's own iteration ({@link dev.loop.netty.PollContext}, {@link dev.loop.netty.LoopThreadExecutor}),
 * and on Netty's native sockets: options ({@link dev.loop.netty.NativeSocketOptions}), the calls of
 * a UDP socket ({@link dev.loop.netty.NativeDatagram}) and Unix domain sockets
 * ({@link dev.loop.netty.NativeUnixIo}). For the backends only; not an API.
 */
module dev.loop.netty {
    requires transitive dev.loop;
    requires transitive io.netty.common;
    requires transitive io.netty.transport;
    requires transitive io.netty.transport.unix.common;

    exports dev.loop.netty;
}
