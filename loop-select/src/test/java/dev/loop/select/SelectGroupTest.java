package dev.loop.select;

import dev.loop.LoopGroup;
import dev.loop.LoopGroupContract;
import dev.loop.LoopOptions;

/** A loop group on select: one loop accepts and hands connections to the others. */
class SelectGroupTest extends LoopGroupContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("select");
    }

    @Override
    protected LoopGroup.AcceptMode expectedAutoMode() {
        return LoopGroup.AcceptMode.HANDOFF;
    }
}
