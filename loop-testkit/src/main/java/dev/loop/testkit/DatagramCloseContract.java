package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static dev.loop.testkit.Runs.awaitFailure;
import static dev.loop.testkit.Runs.spin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramHandler;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Closing: close sends what is queued, fails the receive and refuses what comes after; closing the
 * loop fails what is pending and leaks no descriptor; abort fails the receive and the next send.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class DatagramCloseContract extends DatagramSuite {

    @Test
    void closeSendsWhatIsQueuedFailsTheReceiveAndRefusesWhatComesAfter() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = bind(loop);
        DatagramEndpoint client = bind(loop);
        List<LoopFuture<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sends.add(client.send(new byte[1000], server.localAddress()));
        }
        LoopFuture<Datagram> pending = client.receive();
        LoopFuture<Void> closed = client.close();
        assertInstanceOf(ClosedChannelException.class, awaitFailure(loop, pending));
        await(loop, closed);
        for (LoopFuture<Void> s : sends) {
            assertTrue(s.isDone() && s.isSuccess(), "a send before close is sent: " + s);
        }
        assertFalse(client.isOpen());
        assertInstanceOf(ClosedChannelException.class, awaitFailure(loop, client.send(utf8("x"), server.localAddress())));
        assertInstanceOf(ClosedChannelException.class, awaitFailure(loop, client.receive()));
        for (int i = 0; i < 20; i++) {
            assertEquals(1000, await(loop, server.receive()).data().remaining());
        }
    }

    @Test
    void closingTheLoopFailsWhatIsPendingAndLeaksNoDescriptor() throws Exception {
        long before = Fds.count();
        Loop loop = open();
        DatagramEndpoint pulled = bind(loop);
        LoopFuture<Datagram> receive = pulled.receive();
        DatagramEndpoint pushed = bind(loop);
        Throwable[] closedWith = {null};
        boolean[] told = {false};
        pushed.setHandler(new DatagramHandler() {
            @Override
            public void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, InetSocketAddress sender) {
            }

            @Override
            public void onClosed(DatagramEndpoint endpoint, Throwable error) {
                told[0] = true;
                closedWith[0] = error;
            }
        });
        DatagramEndpoint idle = Datagrams.open(loop, ANY_PORT, pulled.localAddress(), DatagramOptions.defaults());
        spin(loop, 2);
        loop.close();
        assertTrue(receive.isDone(), "the pending receive is not left pending");
        assertInstanceOf(IOException.class, receive.exception());
        assertTrue(told[0], "the handler heard of the close");
        assertInstanceOf(IOException.class, closedWith[0]);
        for (DatagramEndpoint e : List.of(pulled, pushed, idle)) {
            assertFalse(e.isOpen());
            assertTrue(e.closeFuture().isDone());
        }
        if (before >= 0) {
            assertEquals(before, Fds.count(), "file descriptors leaked");
        }
    }

    @Test
    void abortFailsTheReceiveAndTheNextSend() throws Exception {
        Loop loop = open();
        DatagramEndpoint client = bind(loop);
        LoopFuture<Datagram> pending = client.receive();
        client.abort();
        assertInstanceOf(IOException.class, awaitFailure(loop, pending));
        assertTrue(client.closeFuture().isDone());
        Throwable after = awaitFailure(loop, client.send(utf8("x"), ANY_PORT));
        assertInstanceOf(IOException.class, after);
        assertNull(client.remoteAddress());
    }
}
