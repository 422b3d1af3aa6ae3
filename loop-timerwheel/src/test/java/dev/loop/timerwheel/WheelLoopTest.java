package dev.loop.timerwheel;

import dev.loop.LoopContract;
import dev.loop.LoopOptions;

/**
 * The engine's contract with the {@code wheel} timers, unchanged: the wheel keeps the strict
 * (deadline, sequence) order the heap does. The backend is loop-api's I/O-less test backend.
 */
class WheelLoopTest extends LoopContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("park").withTimers(TimerWheelProvider.NAME);
    }
}
