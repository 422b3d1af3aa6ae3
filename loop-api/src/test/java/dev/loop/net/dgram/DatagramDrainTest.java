package dev.loop.net.dgram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.LoopFuture;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * drain() on a UDP endpoint whose queue is full. The kernel never refuses a UDP send on loopback
 * (it hands the datagram over at once and drops what the receiver has no room for), so the network
 * suites cannot fill the queue: here the endpoint is the real one over real 127.0.0.1 sockets, and
 * only "the kernel has no room" is said by the test.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DatagramDrainTest extends OverLoopbackDatagrams {
    private static final DatagramOptions SMALL = DatagramOptions.defaults().withWatermarks(100, 200);

    private InetSocketAddress to() throws IOException {
        return (InetSocketAddress) peer.getLocalAddress();
    }

    private static boolean cancel(LoopFuture<?> f) {
        return f.toCompletableFuture().cancel(false) && f.isCancelled();
    }

    @Test
    void eachWaitingDrainCanBeCancelledAlone() throws IOException {
        DatagramEndpoint ep = Datagrams.bind(loop, LOOPBACK, SMALL);
        sockets.full = true; // every send is queued: 300 bytes, above the high mark
        for (int i = 0; i < 3; i++) {
            byte[] d = new byte[100];
            d[0] = (byte) i;
            ep.send(ByteBuffer.wrap(d), to());
        }
        assertFalse(ep.isWritable());
        LoopFuture<Void> a = ep.drain();
        LoopFuture<Void> b = ep.drain();
        assertTrue(cancel(a));
        assertFalse(b.isDone(), "cancelling one drainer cancelled another: " + b);
        LoopFuture<Void> c = ep.drain();
        assertFalse(c.isDone(), "a drain after a cancelled one starts cancelled: " + c);

        sockets.makeRoom(); // WRITE readiness: the queue flushes to empty, below the low mark
        loop.runUntilComplete(c);
        assertTrue(b.isSuccess() && c.isSuccess(), b + ", " + c);
        assertTrue(a.isCancelled());
        assertTrue(ep.isWritable());
        assertEquals(0, ep.queuedBytes());
        // the queue went out in order, each datagram whole
        ByteBuffer got = ByteBuffer.allocate(65_536);
        for (int i = 0; i < 3; i++) {
            got.clear();
            peer.receive(got);
            assertEquals(100, got.flip().remaining());
            assertEquals(i, got.get(0));
        }
    }

    @Test
    void closingFailsEveryWaitingDrainWithTheCause() throws IOException {
        DatagramEndpoint ep = Datagrams.bind(loop, LOOPBACK, SMALL);
        sockets.full = true;
        for (int i = 0; i < 3; i++) {
            ep.send(ByteBuffer.allocate(100), to());
        }
        LoopFuture<Void> a = ep.drain();
        LoopFuture<Void> b = ep.drain();
        ep.abort();
        for (LoopFuture<Void> f : List.of(a, b)) {
            assertTrue(f.isDone() && !f.isCancelled(), f.toString());
            assertInstanceOf(IOException.class, f.exception());
            assertTrue(f.exception().getMessage().contains("aborted"), f.exception().getMessage());
        }
    }
}
