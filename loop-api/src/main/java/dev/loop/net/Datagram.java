package dev.loop.net;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One received datagram and who sent it.
 *
 * @param data      from {@link DatagramEndpoint#receive()}: a new buffer holding exactly the
 *                  datagram (position 0, limit its length); from
 *                  {@link DatagramEndpoint#receive(ByteBuffer)}: the caller's buffer, its position
 *                  moved past the bytes put there (flip it to read them)
 * @param sender    where the datagram came from (on a connected endpoint, its peer)
 * @param truncated the datagram was longer than the room the caller gave, and only that much of it
 *                  was kept (the rest is gone, as with the kernel's own {@code recv}); never true
 *                  for {@code receive()} or for a handler
 */
public record Datagram(ByteBuffer data, InetSocketAddress sender, boolean truncated) {
}
