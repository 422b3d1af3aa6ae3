package dev.loop.epoll;

import dev.loop.LoopGroup;
import dev.loop.LoopGroupContract;
import dev.loop.LoopOptions;

/** A loop group on epoll: every loop listens on the port with SO_REUSEPORT. */
class EpollGroupTest extends LoopGroupContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("epoll");
    }

    @Override
    protected LoopGroup.AcceptMode expectedAutoMode() {
        return LoopGroup.AcceptMode.REUSE_PORT;
    }
}
