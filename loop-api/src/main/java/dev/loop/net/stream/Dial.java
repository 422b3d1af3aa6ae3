package dev.loop.net.stream;

import dev.loop.net.Unix;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoSocket;
import java.io.IOException;

/** How a client connection opens its socket (TCP, a Unix path, a Linux abstract name); loop thread only. */
@FunctionalInterface
public interface Dial {

    /** Starts connecting a socket that reports to {@code ready}. */
    IoSocket open(IoReady ready) throws IOException;
}
