package dev.loop.sim;

import dev.loop.spi.BackendProvider;
import dev.loop.spi.IoDriver;

/**
 * {@code sim}: sockets on an in-memory network instead of the kernel's. Never chosen by default
 * (its priority is below every real backend's): a program runs on it when asked by name, or when a
 * {@link Simulation} opens its hosts' loops. A loop opened by name outside a simulation joins one
 * network shared by the JVM, on real time, where bytes arrive at once (what the shared suites run
 * on); a simulation's loops run on its own network, on virtual time, one at a time.
 */
public final class SimBackendProvider implements BackendProvider {
    public static final String NAME = "sim";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return -100;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    @Override
    public IoDriver newDriver() {
        Runner opening = Simulation.OPENING.get();
        if (opening != null) {
            return opening.driver();
        }
        return new SimDriver(SimNetwork.shared(), SimNetwork.shared().localHost(), null);
    }
}
