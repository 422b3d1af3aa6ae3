package dev.loop.heap;

import dev.loop.spi.TimerQueue;
import dev.loop.spi.TimerQueueProvider;

/** {@code heap}: the default timer strategy (highest priority among the built-in ones). */
public final class HeapTimerQueueProvider implements TimerQueueProvider {
    public static final String NAME = "heap";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 100;
    }

    @Override
    public TimerQueue newTimerQueue() {
        return new HeapTimerQueue();
    }
}
