package dev.loop.sim;

import dev.loop.spi.LoopClock;

/**
 * A host's clock in a simulation: the simulation's virtual time plus the host's skew. Never real:
 * a loop with nothing to do tells it its next timer ({@link #idle}) and waits for I/O; the
 * simulation moves time to the next thing that happens anywhere, a timer of any host or a segment
 * arriving, and gives the turn to whoever it concerns.
 */
final class SimClock implements LoopClock {
    private final Simulation simulation;
    private final SimHost host;
    private final Runner runner;

    SimClock(Simulation simulation, SimHost host, Runner runner) {
        this.simulation = simulation;
        this.host = host;
        this.runner = runner;
    }

    @Override
    public long nanoTime() {
        return simulation.now() + host.skewNanos;
    }

    @Override
    public boolean isReal() {
        return false;
    }

    @Override
    public boolean idle(long deadlineNanos) {
        if (deadlineNanos != Long.MAX_VALUE) {
            runner.deadline = deadlineNanos - host.skewNanos; // the loop's own thread, before its poll
        }
        return false;
    }
}
