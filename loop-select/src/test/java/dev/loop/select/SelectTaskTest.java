package dev.loop.select;

import dev.loop.LoopOptions;
import dev.loop.TaskContract;

/** The task contract on the Selector backend, with whichever task mechanism this JVM offers. */
class SelectTaskTest extends TaskContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("select").withTimers("heap");
    }

    @Override
    protected String mechanism() {
        return null;
    }
}
