package dev.loop.epoll;

import dev.loop.LoopContract;
import dev.loop.LoopOptions;

/** The engine contract on the epoll backend with heap timers. */
class EpollHeapLoopTest extends LoopContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("epoll").withTimers("heap");
    }

    @Override
    protected boolean anInterruptEndsABlockingPoll() {
        return false; // epoll_wait is native: Thread.interrupt() cannot end it
    }
}
