package dev.loop.timerwheel;

import dev.loop.LoopContract;
import dev.loop.LoopOptions;

/**
 * The engine's contract with the {@code wheel} timers on the Selector backend, unchanged: the
 * wheel keeps the strict (deadline, sequence) order the heap does.
 */
class SelectWheelLoopTest extends LoopContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("select").withTimers(TimerWheelProvider.NAME);
    }
}
