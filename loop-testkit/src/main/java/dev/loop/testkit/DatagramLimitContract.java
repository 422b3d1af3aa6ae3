package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static dev.loop.testkit.Runs.awaitFailure;
import static dev.loop.testkit.Runs.spin;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.Task;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Limits and refusals: a datagram too large to send or too long for the buffer, broadcast without
 * its option, an address in use, unresolved or mismatched targets, one receive at a time, and
 * sends the kernel takes at once queue nothing.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class DatagramLimitContract extends DatagramSuite {

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
}
