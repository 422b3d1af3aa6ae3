package dev.loop.select;

import dev.loop.LoopContract;
import dev.loop.LoopOptions;

/** The engine contract on the Selector backend with heap timers. */
class SelectHeapLoopTest extends LoopContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("select").withTimers("heap");
    }
}
