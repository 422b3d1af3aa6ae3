package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static dev.loop.testkit.Runs.awaitFailure;
import static dev.loop.testkit.Runs.spin;
import static dev.loop.testkit.Runs.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.Task;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramHandler;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The UDP contract, written once and run on every backend with datagram sockets x timer strategy
 * x task mechanism of the {@link Matrix}. Everything runs on 127.0.0.1; the multicast tests are in
 * {@link MulticastContract}.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class DatagramContract {
    static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    /** The largest UDP payload over IPv4: 65,535 less the IP and UDP headers. */
    static final int MAX_IPV4_DATAGRAM = 65_507;

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    Loop open() {
        return loops.open(cell.options());
    }

    static DatagramEndpoint bind(Loop loop) throws IOException {
        return Datagrams.bind(loop, ANY_PORT);
    }

    /** An endpoint that sends every datagram back to its sender, push style. */
    static DatagramEndpoint echo(Loop loop) throws IOException {
        DatagramEndpoint server = bind(loop);
        server.setHandler((ep, data, sender) -> ep.send(data, sender));
        return server;
    }

    static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String text(Datagram d) {
        ByteBuffer b = d.data().duplicate();
        if (b.position() > 0) {
            b.flip(); // receive(dst): the bytes are behind the position
        }
        return StandardCharsets.UTF_8.decode(b).toString();
    }

    /** A loopback port where nothing listens: bound, then closed. */
    InetSocketAddress deadPort(Loop loop) throws IOException {
        DatagramEndpoint gone = bind(loop);
        InetSocketAddress at = gone.localAddress();
        gone.abort();
        await(loop, gone.closeFuture()); // the port is free from here on
        return at;
    }

    // ------------------------------------------------------------------ round trips

    @Test
    void roundTripsAreByteExactAndNameTheSender() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = echo(loop);
        DatagramEndpoint client = bind(loop);
        Random rnd = new Random(3);
        for (int size : new int[] {0, 1, 1000, 8192, MAX_IPV4_DATAGRAM}) {
            byte[] data = new byte[size];
            rnd.nextBytes(data);
            await(loop, client.send(data, server.localAddress()));
            Datagram back = await(loop, client.receive());
            assertArrayEquals(data, back.data().array(), "a datagram of " + size + " bytes");
            assertEquals(0, back.data().position());
            assertEquals(server.localAddress(), back.sender());
            assertFalse(back.truncated());
        }
    }

    @Test
    void aTaskReceivesAndSendsInSequence() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = echo(loop);
        DatagramEndpoint client = bind(loop);
        List<String> got = await(loop, loop.spawn(() -> {
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Async.await(client.send(utf8("ping " + i), server.localAddress()), IOException.class);
                Datagram d = Async.await(client.receive(), IOException.class);
                answers.add(text(d));
            }
            return answers;
        }));
        assertEquals(List.of("ping 0", "ping 1", "ping 2", "ping 3", "ping 4"), got);
    }

    @Test
    void manyPeersShareOneSocketAndEachGetsOnlyItsOwnAnswers() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = echo(loop);
        int peers = 40;
        int rounds = 25;
        List<LoopFuture<List<String>>> all = new ArrayList<>();
        for (int p = 0; p < peers; p++) {
            DatagramEndpoint client = bind(loop);
            int peer = p;
            // one datagram in flight per peer: nothing can overflow a receive buffer and be dropped
            all.add(loop.spawn(() -> {
                List<String> answers = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    Async.await(client.send(utf8(peer + "/" + r), server.localAddress()), IOException.class);
                    Datagram d = Async.await(client.receive(), IOException.class);
                    assertEquals(server.localAddress(), d.sender());
                    answers.add(text(d));
                }
                client.close();
                return answers;
            }));
        }
        List<List<String>> got = await(loop, LoopFuture.all(loop, all));
        for (int p = 0; p < peers; p++) {
            List<String> expected = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                expected.add(p + "/" + r);
            }
            assertEquals(expected, got.get(p), "peer " + p);
        }
    }

    @Test
    void aHandlerGetsEveryDatagramInOrderAndCanBePaused() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = bind(loop);
        List<String> got = new ArrayList<>();
        server.setHandler((ep, data, sender) -> got.add(StandardCharsets.UTF_8.decode(data).toString()));
        DatagramEndpoint client = bind(loop);
        for (int i = 0; i < 100; i++) {
            client.send(utf8("d" + i), server.localAddress());
        }
        until(loop, () -> got.size() == 100, "100 datagrams arrived");
        for (int i = 0; i < 100; i++) {
            assertEquals("d" + i, got.get(i));
        }
        server.pauseReceiving();
        client.send(utf8("late"), server.localAddress());
        spin(loop, 5);
        assertEquals(100, got.size(), "nothing is received while paused");
        server.resumeReceiving();
        until(loop, () -> got.size() == 101, "the datagram held by the kernel arrived");
        assertEquals("late", got.get(100));
    }

    // ------------------------------------------------------------------ connected endpoints

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

    // ------------------------------------------------------------------ limits

    @Test
    void aDatagramTooLargeToSendFailsAloneNamingItsSizeAndTarget() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = bind(loop);
        DatagramEndpoint client = bind(loop);
        ByteBuffer big = ByteBuffer.allocate(MAX_IPV4_DATAGRAM + 1);
        Throwable e = awaitFailure(loop, client.send(big, server.localAddress()));
        assertInstanceOf(SocketException.class, e);
        assertTrue(e.getMessage().contains(Integer.toString(MAX_IPV4_DATAGRAM + 1)), e.getMessage());
        assertTrue(e.getMessage().contains(server.localAddress().toString()), e.getMessage());
        assertFalse(big.hasRemaining(), "the buffer is consumed either way");
        await(loop, client.send(utf8("after"), server.localAddress()));
        Datagram d = await(loop, server.receive());
        assertEquals("after", text(d), "nothing of the refused datagram arrived");
    }

    @Test
    void aDatagramLongerThanTheBufferIsReportedTruncated() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = bind(loop);
        DatagramEndpoint client = bind(loop);
        byte[] data = new byte[100];
        new Random(4).nextBytes(data);
        client.send(data, server.localAddress());
        ByteBuffer small = ByteBuffer.allocate(10);
        Datagram cut = await(loop, server.receive(small));
        assertTrue(cut.truncated());
        assertEquals(10, small.position());
        assertArrayEquals(java.util.Arrays.copyOf(data, 10), java.util.Arrays.copyOf(small.array(), 10));
        client.send(data, server.localAddress());
        ByteBuffer exact = ByteBuffer.allocate(100);
        Datagram whole = await(loop, server.receive(exact));
        assertFalse(whole.truncated());
        assertArrayEquals(data, exact.array());
        client.send(data, server.localAddress());
        ByteBuffer direct = ByteBuffer.allocateDirect(64 * 1024);
        Datagram big = await(loop, server.receive(direct));
        assertFalse(big.truncated());
        assertEquals(100, direct.position());
        assertEquals(client.localAddress(), big.sender());
    }

    @Test
    void broadcastNeedsTheBroadcastOption() throws Exception {
        Loop loop = open();
        InetSocketAddress broadcast = new InetSocketAddress(InetAddress.getByName("127.255.255.255"), 9);
        DatagramEndpoint plain = bind(loop);
        Throwable refused = awaitFailure(loop, plain.send(utf8("all"), broadcast));
        assertInstanceOf(SocketException.class, refused);
        assertTrue(refused.getMessage().contains("127.255.255.255"), refused.getMessage());
        DatagramEndpoint allowed = Datagrams.bind(loop, ANY_PORT, DatagramOptions.defaults().withBroadcast(true));
        await(loop, allowed.send(utf8("all"), broadcast));
    }

    @Test
    void bindingAnAddressInUseFailsNamingItUnlessEveryoneSharesIt() throws Exception {
        Loop loop = open();
        DatagramEndpoint first = bind(loop);
        BindException e = assertThrows(BindException.class, () -> Datagrams.bind(loop, first.localAddress()));
        assertTrue(e.getMessage().contains(first.localAddress().toString()), e.getMessage());
        DatagramOptions shared = DatagramOptions.defaults().withReuseAddress(true).withReusePort(true);
        DatagramEndpoint a = Datagrams.bind(loop, ANY_PORT, shared);
        DatagramEndpoint b = Datagrams.bind(loop, a.localAddress(), shared);
        assertEquals(a.localAddress(), b.localAddress());
    }

    @Test
    void anUnresolvedTargetIsRefusedNamingIt() throws Exception {
        Loop loop = open();
        DatagramEndpoint client = bind(loop);
        InetSocketAddress nowhere = InetSocketAddress.createUnresolved("nowhere.invalid", 9);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> client.send(utf8("x"), nowhere));
        assertTrue(e.getMessage().contains("nowhere.invalid"), e.getMessage());
        IllegalArgumentException local = assertThrows(IllegalArgumentException.class, () -> Datagrams.bind(loop, nowhere));
        assertTrue(local.getMessage().contains("nowhere.invalid"), local.getMessage());
    }

    @Test
    void anIpv6TargetForAnIpv4EndpointIsRefusedNamingBoth() throws Exception {
        Loop loop = open();
        DatagramEndpoint v4 = bind(loop);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 9);
        IllegalArgumentException send = assertThrows(IllegalArgumentException.class, () -> v4.send(utf8("x"), v6));
        assertTrue(send.getMessage().contains(v6.toString()) && send.getMessage().contains(v4.localAddress().toString()),
                send.getMessage());
        IllegalArgumentException connect = assertThrows(IllegalArgumentException.class,
                () -> Datagrams.open(loop, ANY_PORT, v6, DatagramOptions.defaults()));
        assertTrue(connect.getMessage().contains(v6.toString()), connect.getMessage());
        assertTrue(v4.isOpen(), "a refused target does not close the endpoint");
        DatagramEndpoint server = bind(loop);
        await(loop, v4.send(utf8("still works"), server.localAddress()));
        assertEquals("still works", text(await(loop, server.receive())));
    }

    @Test
    void oneReceiveAtATimeAndACancelledOneLosesNoDatagram() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = bind(loop);
        DatagramEndpoint client = bind(loop);
        // a task waiting for a datagram is cancelled: what it awaits, the receive, is cancelled too
        Task<Datagram> waiting = loop.spawn(() -> Async.await(server.receive()));
        spin(loop, 2);
        assertThrows(IllegalStateException.class, server::receive, "a receive is pending");
        assertThrows(IllegalStateException.class, () -> server.setHandler((ep, d, s) -> { }));
        waiting.cancel();
        spin(loop, 2);
        assertTrue(waiting.isCancelled());
        await(loop, client.send(utf8("kept"), server.localAddress()));
        spin(loop, 2);
        assertEquals("kept", text(await(loop, server.receive())));
    }

    @Test
    void sendsTheKernelTakesAtOnceQueueNothing() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = bind(loop);
        DatagramEndpoint client = bind(loop);
        for (int i = 0; i < 50; i++) {
            client.send(new byte[100], server.localAddress());
        }
        assertEquals(0, client.queuedBytes());
        assertTrue(client.isWritable());
        assertTrue(client.drain().isDone());
    }

    // ------------------------------------------------------------------ closing

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
