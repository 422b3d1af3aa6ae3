package dev.loop.timerwheel;

import dev.loop.LoopContract;
import dev.loop.LoopOptions;

/** The engine's contract with the {@code wheel} timers on the epoll backend. */
class EpollWheelLoopTest extends LoopContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("epoll").withTimers(TimerWheelProvider.NAME);
    }

    @Override
    protected boolean anInterruptEndsABlockingPoll() {
        return false; // epoll_wait is native: Thread.interrupt() cannot end it
    }
}
