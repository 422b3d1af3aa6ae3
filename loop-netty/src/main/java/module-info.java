/**
 * What the backends on Netty's native transports share: a Netty {@code IoHandler} driven from the
 * loop's own iteration ({@link dev.loop.netty.PollContext}, {@link dev.loop.netty.LoopThreadExecutor})
 * and socket options on Netty's native sockets ({@link dev.loop.netty.NativeSocketOptions}). For the
 * backends only; not an API.
 */
module dev.loop.netty {
    requires transitive io.netty.common;
    requires transitive io.netty.transport;
    requires transitive io.netty.transport.unix.common;

    exports dev.loop.netty;
}
