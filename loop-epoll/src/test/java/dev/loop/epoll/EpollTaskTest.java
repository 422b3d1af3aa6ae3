package dev.loop.epoll;

import dev.loop.LoopOptions;
import dev.loop.TaskContract;

/** The task contract on the epoll backend, with whichever task mechanism this JVM offers. */
class EpollTaskTest extends TaskContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("epoll").withTimers("heap");
    }

    @Override
    protected String mechanism() {
        return null;
    }
}
