package dev.loop.select;

import dev.loop.spi.IoDriver;
import dev.loop.spi.BackendProvider;
import java.io.IOException;

/** {@code select}: the JDK {@link java.nio.channels.Selector} backend, available everywhere. */
public final class SelectBackendProvider implements BackendProvider {
    public static final String NAME = "select";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 10;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    @Override
    public IoDriver newDriver() throws IOException {
        return new SelectDriver();
    }
}
