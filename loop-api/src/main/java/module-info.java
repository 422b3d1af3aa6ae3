/**
 * The loop: its public API ({@code dev.loop}, {@code dev.loop.sync}, {@code dev.loop.net}), the
 * SPI that backends and timer strategies implement ({@code dev.loop.spi}) and the heap timers.
 * The engine ({@code dev.loop.engine}) is not exported. See docs/adr/0006-layout.md.
 */
module dev.loop {
    requires org.jctools.core;
    requires jdk.jfr;            // the loop's events (dev.loop.engine.LoopEvents)
    requires java.management;    // an MBean per loop
    requires jdk.unsupported; // sun.misc.Signal, for dev.loop.Signals

    exports dev.loop;
    exports dev.loop.sync;
    exports dev.loop.net;
    exports dev.loop.process;
    exports dev.loop.spi;
    exports dev.loop.heap;

    uses dev.loop.spi.BackendProvider;
    uses dev.loop.spi.TimerQueueProvider;

    provides dev.loop.spi.TimerQueueProvider with dev.loop.heap.HeapTimerQueueProvider;
}
