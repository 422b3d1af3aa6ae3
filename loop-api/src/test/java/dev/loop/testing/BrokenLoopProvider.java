package dev.loop.testing;

import dev.loop.spi.IoDriver;
import dev.loop.spi.BackendProvider;

/** A provider whose constructor throws: discovery must report it and carry on. */
public final class BrokenLoopProvider implements BackendProvider {
    public BrokenLoopProvider() {
        throw new IllegalStateException("broken provider's constructor failed on purpose");
    }

    @Override
    public String name() {
        return "broken";
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    @Override
    public IoDriver newDriver() {
        throw new AssertionError();
    }
}
