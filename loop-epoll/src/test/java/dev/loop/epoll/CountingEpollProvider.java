package dev.loop.epoll;

import dev.loop.spi.IoHandler;
import dev.loop.spi.LoopProvider;

/**
 * {@code epoll-counted}: the epoll backend, remembering the handler it opened last so tests can
 * read its counters. Registered for this module's tests only, below every real backend.
 */
public final class CountingEpollProvider implements LoopProvider {
    static final String NAME = "epoll-counted";
    /** The handler of the loop opened last. */
    static volatile EpollIoHandler last;

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
        return new EpollLoopProvider().unavailabilityCause();
    }

    @Override
    public IoHandler newIoHandler() {
        EpollIoHandler h = new EpollIoHandler();
        last = h;
        return h;
    }
}
