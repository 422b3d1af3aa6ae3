package dev.loop;

/** The contract on the engine alone: the I/O-less test backend with heap timers. */
class ParkingLoopTest extends LoopContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("park").withTimers("heap");
    }
}
