package dev.loop.testing;

import dev.loop.spi.IoDriver;
import dev.loop.spi.BackendProvider;

/** {@code nowhere}: a backend that is never available, to test how discovery reports it. */
public final class UnavailableLoopProvider implements BackendProvider {
    @Override
    public String name() {
        return "nowhere";
    }

    @Override
    public int priority() {
        return 1000;
    }

    @Override
    public Throwable unavailabilityCause() {
        return new UnsupportedOperationException("nowhere needs hardware this machine does not have");
    }

    @Override
    public IoDriver newDriver() {
        throw new AssertionError("must not be called when unavailable");
    }
}
