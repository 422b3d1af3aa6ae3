package dev.loop.epoll;

import dev.loop.spi.IoDriver;
import dev.loop.spi.BackendProvider;

/**
 * {@code epoll-counted}: the epoll backend, remembering the handler it opened last so tests can
 * read its counters. Registered for this module's tests only, below every real backend.
 */
public final class CountingEpollProvider implements BackendProvider {
    static final String NAME = "epoll-counted";
    /** The handler of the loop opened last. */
    static volatile EpollDriver last;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return Integer.MIN_VALUE + 1;
    }

    @Override
    public Throwable unavailabilityCause() {
        return new EpollBackendProvider().unavailabilityCause();
    }

    @Override
    public IoDriver newDriver() {
        EpollDriver h = new EpollDriver();
        last = h;
        return h;
    }
}
