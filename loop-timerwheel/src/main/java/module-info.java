/** Timer strategy {@code wheel}: a hierarchical hashed timing wheel with O(1) add and cancel. */
module dev.loop.timerwheel {
    requires dev.loop;

    provides dev.loop.spi.TimerQueueProvider with dev.loop.timerwheel.TimerWheelProvider;
}
