package dev.loop.testing;

import dev.loop.spi.IoDriver;
import dev.loop.spi.BackendProvider;

/** {@code park}: the I/O-less test backend, registered only for loop-api's own tests. */
public final class ParkingLoopProvider implements BackendProvider {
    /** The handler of the loop opened last, for tests that inspect it. */
    public static volatile ParkingDriver last;

    @Override
    public String name() {
        return "park";
    }

    @Override
    public int priority() {
        return 1;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    @Override
    public IoDriver newDriver() {
        ParkingDriver h = new ParkingDriver();
        last = h;
        return h;
    }
}
