package dev.loop.select;

import dev.loop.spi.IoReady;
import java.nio.channels.SelectionKey;

/**
 * What a selection key's attachment is: a handle that translates the key's ready set into
 * {@link IoReady} bits and names its receiver, so that the driver alone hands readiness over (and
 * catches a receiver that throws). Loop thread only.
 */
interface Selected {
    /** The receiver to tell, or null while none is attached (an accepted socket not yet adopted). */
    IoReady receiver();

    /** {@code key}'s ready set as {@link IoReady} bits; 0 for a key cancelled meanwhile. */
    int readyBits(SelectionKey key);
}
