/** The loop's public API, its SPI, and the shared engine with the default heap timers. */
module dev.loop {
    requires org.jctools.core;

    exports dev.loop;
    exports dev.loop.spi;

    uses dev.loop.spi.LoopProvider;
    uses dev.loop.spi.TimerQueueProvider;

    provides dev.loop.spi.TimerQueueProvider with dev.loop.heap.HeapTimerQueueProvider;
}
