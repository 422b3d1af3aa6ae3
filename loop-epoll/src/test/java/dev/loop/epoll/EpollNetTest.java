package dev.loop.epoll;

import dev.loop.LoopOptions;
import dev.loop.NetContract;

/** The TCP contract on the epoll backend. */
class EpollNetTest extends NetContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("epoll");
    }
}
