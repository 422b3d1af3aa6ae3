package dev.loop.select;

import dev.loop.LoopOptions;
import dev.loop.NetContract;

/** The TCP contract on the Selector backend. */
class SelectNetTest extends NetContract {
    @Override
    protected LoopOptions options() {
        return LoopOptions.defaults().withBackend("select");
    }
}
