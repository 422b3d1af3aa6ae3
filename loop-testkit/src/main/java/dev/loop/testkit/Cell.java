package dev.loop.testkit;

import dev.loop.LoopOptions;

/**
 * One combination of the conformance matrix: a backend, a timer strategy and a task mechanism
 * ({@code continuation}, {@code threads}, or {@code auto} for the JVM's own choice).
 *
 * @param backend   a backend name as {@code Loops.providers()} lists it
 * @param timers    a timer strategy name
 * @param mechanism a task mechanism, or null where the suite does not run tasks
 * @param transport for the network suites, what connections run over ({@code tcp}, {@code tls}); null elsewhere
 */
public record Cell(String backend, String timers, String mechanism, String transport) {

    /** A cell of the suites that open no connections. */
    public Cell(String backend, String timers, String mechanism) {
        this(backend, timers, mechanism, null);
    }

    /** The options that open a loop of this cell; the suites add clocks and debug themselves. */
    public LoopOptions options() {
        LoopOptions o = LoopOptions.defaults().withBackend(backend).withTimers(timers);
        return mechanism == null ? o : o.withTaskMechanism(mechanism);
    }

    @Override
    public String toString() {
        return backend + "/" + timers + (mechanism == null ? "" : "/" + mechanism)
                + (transport == null ? "" : "/" + transport);
    }
}
