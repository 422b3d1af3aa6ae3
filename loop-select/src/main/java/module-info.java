/** Backend {@code select}: one JDK {@code Selector} per loop, available everywhere. */
module dev.loop.select {
    requires dev.loop;

    provides dev.loop.spi.BackendProvider with dev.loop.select.SelectBackendProvider;
}
