/**
 * Backend {@code epoll}: Linux epoll through Netty's native transport, driven by the loop's own
 * iteration. On the module path, Netty's native jar ({@code io.netty.transport.epoll.linux.x86_64})
 * must be resolved too ({@code --add-modules}) for the backend to be available.
 */
module dev.loop.epoll {
    requires dev.loop;
    requires dev.loop.linux;
    requires io.netty.common;
    requires io.netty.transport;
    requires io.netty.transport.unix.common;
    requires io.netty.transport.classes.epoll;

    provides dev.loop.spi.BackendProvider with dev.loop.epoll.EpollBackendProvider;
}
