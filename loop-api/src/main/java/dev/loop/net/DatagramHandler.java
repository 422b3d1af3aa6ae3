package dev.loop.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Push-style receiving on a {@link DatagramEndpoint} (asyncio's {@code DatagramProtocol}): the
 * endpoint calls these on the loop thread, in its callback phase, never during a poll.
 */
public interface DatagramHandler {

    /**
     * A datagram arrived. {@code data} is the loop's own buffer, valid only during this call: consume
     * it or copy it ({@link DatagramEndpoint#send} copies what it queues, so answering with it is
     * safe). It always holds the whole datagram.
     *
     * @param sender who sent it; on a backend that keeps it (select), the same object for every
     *               datagram in a row from the same sender
     */
    void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, InetSocketAddress sender);

    /**
     * Receiving failed but the endpoint stays open (asyncio's {@code error_received}): on a connected
     * endpoint, a {@link java.net.PortUnreachableException} when an earlier datagram was refused by
     * the peer's host. A handler that does not override this method leaves such errors to the
     * endpoint, which reports them to the loop's exception handler rate-limited, as other faults a
     * peer causes are: the first at once in one line, then a count at most every 10 s (a peer can
     * send such errors as often as it likes). This default, called directly, reports one at once.
     */
    default void onError(DatagramEndpoint endpoint, IOException error) {
        endpoint.loop().callExceptionHandler("receiving on " + endpoint + " failed", error, this);
    }

    /**
     * The endpoint closed.
     *
     * @param error why, or {@code null} for a normal close
     */
    default void onClosed(DatagramEndpoint endpoint, Throwable error) {
    }
}
