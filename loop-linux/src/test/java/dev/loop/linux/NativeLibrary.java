package dev.loop.linux;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;

/** Loads the native code Netty's unix-common classes call into, or skips the test where there is none. */
final class NativeLibrary {
    private NativeLibrary() {
    }

    static void load() {
        assumeTrue(Epoll.isAvailable(), () -> "no native epoll here: " + Epoll.unavailabilityCause());
    }
}
