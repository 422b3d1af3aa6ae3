package dev.loop;

/** The task contract on the engine alone, with the no-flag fallback: virtual threads taking turns. */
class ParkingThreadTaskTest extends TaskContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("park").withTimers("heap");
    }

    @Override
    protected String mechanism() {
        return TaskMechanism.THREADS;
    }
}
