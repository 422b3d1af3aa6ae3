package dev.loop.net;

/** How a server listening for a {@link dev.loop.LoopGroup} spreads incoming connections over its loops. */
public enum AcceptMode {
    /** {@link #REUSE_PORT} where the backend's kernel balances it (epoll), else {@link #HANDOFF}. */
    AUTO,
    /** Every loop listens on the port with {@code SO_REUSEPORT}; the kernel picks the loop. */
    REUSE_PORT,
    /** The first loop accepts and hands each connection to the loops in turn, itself included. */
    HANDOFF
}
