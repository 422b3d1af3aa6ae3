package dev.loop;

/** The task contract on the engine alone, with continuations. */
class ParkingTaskTest extends TaskContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("park").withTimers("heap");
    }

    @Override
    protected String mechanism() {
        return TaskMechanism.CONTINUATION;
    }
}
