package dev.loop.spi;

/**
 * An I/O backend found through {@link java.util.ServiceLoader} ({@code select}, {@code epoll}).
 * Implementations have a public no-argument constructor that never throws: a backend that cannot
 * work here says why through {@link #unavailabilityCause()}.
 */
public interface BackendProvider {
    /** The name users select it by ({@code -Dloop.backend=NAME}); lower case, no spaces. */
    String name();

    /** Higher wins among available backends when nothing is selected explicitly. */
    int priority();

    /** Why this backend cannot be used on this machine, or {@code null} when it can. */
    Throwable unavailabilityCause();

    /** A new I/O handler for one loop. Only called when {@link #unavailabilityCause()} is null. */
    IoDriver newDriver() throws java.io.IOException;
}
