package dev.loop.epoll;

import dev.loop.spi.IoDriver;
import dev.loop.spi.BackendProvider;

/**
 * {@code epoll}: Linux epoll through Netty's native transport. Preferred over {@code select} where
 * it loads; elsewhere it reports Netty's own reason ({@code Epoll.unavailabilityCause()}).
 */
public final class EpollBackendProvider implements BackendProvider {
    public static final String NAME = "epoll";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 20;
    }

    @Override
    public Throwable unavailabilityCause() {
        try {
            return io.netty.channel.epoll.Epoll.isAvailable() ? null : io.netty.channel.epoll.Epoll.unavailabilityCause();
        } catch (LinkageError e) {
            return e; // Netty's classes or its native jar are not on the class path
        }
    }

    @Override
    public IoDriver newDriver() {
        return new EpollDriver();
    }
}
