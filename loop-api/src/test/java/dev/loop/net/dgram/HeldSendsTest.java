package dev.loop.net.dgram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramHandler;
import dev.loop.net.Datagrams;
import dev.loop.spi.IoReady;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a handler sends while the endpoint hands out received datagrams is held by a socket that
 * batches sends and leaves in one flush when the batch is handled: over real 127.0.0.1 sockets,
 * with a socket that counts its calls.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class HeldSendsTest extends OverLoopbackDatagrams {
    /** The peer sends {@code n} one-byte datagrams numbered from 0; then the socket reports them. */
    private void arrive(DatagramEndpoint ep, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            peer.send(ByteBuffer.wrap(new byte[] {(byte) i}), ep.localAddress());
        }
        loop.callSoon(() -> sockets.last.ready.onReady(IoReady.READ));
    }

    private List<Integer> echoes(int n) throws IOException {
        List<Integer> got = new ArrayList<>();
        ByteBuffer b = ByteBuffer.allocate(16);
        for (int i = 0; i < n; i++) {
            peer.receive(b.clear());
            got.add((int) b.flip().get());
        }
        return got;
    }

    @Test
    void answersToABatchAreHeldAndLeaveInOneFlush() throws IOException {
        DatagramEndpoint ep = Datagrams.bind(loop, LOOPBACK);
        ep.setHandler((e, data, from) -> e.send(data, from));
        arrive(ep, 5);
        loop.runUntilComplete(sockets.flushed);
        assertEquals(List.of(0, 1, 2, 3, 4), echoes(5));
        assertEquals(5, sockets.last.heldCount, "every answer was held");
        assertEquals(1, sockets.last.flushes, "and all left in one flush");
        assertEquals(0, sockets.last.sends, "none went on its own");

        // outside a batch a send goes to the kernel at once, as before
        ep.send(ByteBuffer.wrap(new byte[] {9}), (InetSocketAddress) peer.getLocalAddress());
        assertEquals(1, sockets.last.sends);
        assertEquals(List.of(9), echoes(1));
    }

    @Test
    void aHandlerThatClosesAfterAnsweringLetsTheHeldAnswersLeaveThenCloses() throws IOException {
        DatagramEndpoint ep = Datagrams.bind(loop, LOOPBACK);
        ep.setHandler((e, data, from) -> {
            int i = data.get(0);
            e.send(data, from);
            if (i == 2) {
                e.close();
            }
        });
        arrive(ep, 5);
        loop.runUntilComplete(ep.closeFuture());
        assertEquals(List.of(0, 1, 2), echoes(3));
        assertTrue(!ep.isOpen() && !sockets.last.open, "closed once its held answers left");
    }

    @Test
    void aHeldDatagramTheKernelRefusesGoesToTheHandlersOnError() throws IOException {
        sockets.refuseFirst = true;
        DatagramEndpoint ep = Datagrams.bind(loop, LOOPBACK);
        List<IOException> errors = new ArrayList<>();
        ep.setHandler(new DatagramHandler() {
            @Override
            public void onDatagram(DatagramEndpoint e, ByteBuffer data, InetSocketAddress from) {
                e.send(data, from);
            }

            @Override
            public void onError(DatagramEndpoint e, IOException error) {
                errors.add(error);
            }
        });
        arrive(ep, 3);
        loop.runUntilComplete(sockets.flushed);
        assertEquals(List.of(1, 2), echoes(2), "the rest still left");
        assertEquals(1, errors.size(), errors::toString);
        assertInstanceOf(SocketException.class, errors.get(0));
        assertTrue(errors.get(0).getMessage().contains("held for a batched send"), errors.get(0).getMessage());
    }
}
