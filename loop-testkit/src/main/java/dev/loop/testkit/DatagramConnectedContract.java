package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static dev.loop.testkit.Runs.awaitFailure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramHandler;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connected endpoints: they send to their peer and hear only from it, and a peer that refuses
 * (ICMP) surfaces on the next receive or in the handler's onError while the endpoint stays open.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class DatagramConnectedContract extends DatagramSuite {

    @Test
    void aConnectedEndpointSendsToItsPeerAndHearsOnlyFromIt() throws Exception {
        Loop loop = open();
        DatagramEndpoint peer = bind(loop);
        DatagramEndpoint stranger = bind(loop);
        DatagramEndpoint client = Datagrams.open(loop, ANY_PORT, peer.localAddress(), DatagramOptions.defaults());
        assertEquals(peer.localAddress(), client.remoteAddress());
        await(loop, client.send(utf8("hello")));
        Datagram atPeer = await(loop, peer.receive());
        assertEquals("hello", text(atPeer));
        assertEquals(client.localAddress(), atPeer.sender());
        await(loop, stranger.send(utf8("from a stranger"), client.localAddress())); // the kernel drops it
        await(loop, peer.send(utf8("from the peer"), client.localAddress()));
        Datagram back = await(loop, client.receive());
        assertEquals("from the peer", text(back));
        assertEquals(peer.localAddress(), back.sender());
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
                () -> client.send(utf8("x"), stranger.localAddress()));
        assertTrue(other.getMessage().contains(stranger.localAddress().toString()), other.getMessage());
        assertThrows(IllegalStateException.class, () -> stranger.send(utf8("x")), "not connected: no default target");
    }

    @Test
    void aRefusedPeerSurfacesOnTheNextReceiveAndTheEndpointStaysOpen() throws Exception {
        Loop loop = open();
        InetSocketAddress dead = deadPort(loop);
        DatagramEndpoint client = Datagrams.open(loop, ANY_PORT, dead, DatagramOptions.defaults());
        await(loop, client.send(utf8("anyone?")));
        Throwable e = awaitFailure(loop, client.receive());
        assertInstanceOf(PortUnreachableException.class, e);
        assertTrue(e.getMessage().contains(dead.toString()), e.getMessage());
        assertTrue(client.isOpen(), "an ICMP error does not close the endpoint");
        // the endpoint still works: a peer that appears on that port now gets datagrams
        DatagramEndpoint revived = Datagrams.bind(loop, dead);
        await(loop, client.send(utf8("now?")));
        assertEquals("now?", text(await(loop, revived.receive())));
    }

    @Test
    void anEndpointAbortedJustBeforeTheLoopClosesIsClosedByThenWithItsCallbacksRun() throws Exception {
        Loop loop = open();
        List<String> reported = new ArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> reported.add(message + ": " + error));
        DatagramEndpoint e = bind(loop);
        await(loop, e.send(utf8("to myself"), e.localAddress())); // the loop ran: the socket is armed
        List<String> heard = new ArrayList<>();
        e.closeFuture().onDone(f -> heard.add("closed"));
        e.abort(); // and the loop closes before it polls again
        loop.close();
        assertTrue(e.closeFuture().isDone(), "closed by the time the loop is");
        assertEquals(List.of("closed"), heard, "the close future's callback ran");
        assertEquals(List.of(), reported);
    }

    @Test
    void aRefusedPeerReachesTheHandlersOnError() throws Exception {
        Loop loop = open();
        InetSocketAddress dead = deadPort(loop);
        DatagramEndpoint client = Datagrams.open(loop, ANY_PORT, dead, DatagramOptions.defaults());
        Promise<IOException> error = loop.newPromise();
        client.setHandler(new DatagramHandler() {
            @Override
            public void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, InetSocketAddress sender) {
                error.tryFail(new AssertionError("no datagram expected from " + sender));
            }

            @Override
            public void onError(DatagramEndpoint endpoint, IOException e) {
                error.tryComplete(e);
            }
        });
        client.send(utf8("anyone?"));
        assertInstanceOf(PortUnreachableException.class, await(loop, error));
        assertTrue(client.isOpen());
    }
}
