package dev.loop.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Batched datagram calls ({@code recvmmsg}, {@code sendmmsg}) on real sockets over loopback: what
 * arrives, in what order, from whom, and what a refused datagram does to the rest.
 */
class NativeDatagramBatchTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @BeforeAll
    static void loadNative() {
        NativeLibrary.load();
        assumeTrue(Mmsg.available(), "recvmmsg/sendmmsg need java.lang.foreign (JDK 22+)");
    }

    private static NativeDatagram open(Socket s) throws IOException {
        NativeDatagram d = new NativeDatagram(s, Socket.isIPv6Preferred(), new CopyBuffer(64 * 1024), "test");
        d.bind(new InetSocketAddress(LOOPBACK, 0));
        return d;
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** Receives until {@code n} datagrams came, answering "none" at most a few times in a row. */
    private static List<String> receive(NativeDatagram d, int n, List<InetSocketAddress> senders) throws IOException {
        List<String> got = new ArrayList<>();
        ByteBuffer dst = ByteBuffer.allocateDirect(64 * 1024);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (got.size() < n && System.nanoTime() < deadline) {
            InetSocketAddress from = d.receive(dst.clear());
            if (from == null) {
                Thread.onSpinWait();
                continue;
            }
            dst.flip();
            got.add(StandardCharsets.US_ASCII.decode(dst).toString());
            senders.add(from);
        }
        return got;
    }

    @Test
    void datagramsReceivedBackToBackComeInBatchesInOrderWithTheirSenders() throws IOException {
        Socket s = Socket.newSocketDgram();
        try (DatagramChannel a = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
             DatagramChannel b = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            NativeDatagram d = open(s);
            InetSocketAddress to = d.localAddress();
            for (int i = 0; i < 20; i++) {
                (i % 2 == 0 ? a : b).send(text((i % 2 == 0 ? "a" : "b") + i), to);
            }
            List<InetSocketAddress> senders = new ArrayList<>();
            boolean batched = false;
            List<String> got = new ArrayList<>();
            ByteBuffer dst = ByteBuffer.allocate(64 * 1024); // a heap buffer: copied out of the batch
            while (got.size() < 20) {
                InetSocketAddress from = d.receive(dst.clear());
                if (from == null) {
                    continue; // the kernel has them all already: at most the one skipped call
                }
                batched |= d.buffered();
                got.add(StandardCharsets.US_ASCII.decode(dst.flip()).toString());
                senders.add(from);
            }
            assertTrue(batched, "after two datagrams back to back the socket receives several per call");
            for (int i = 0; i < 20; i++) {
                assertEquals((i % 2 == 0 ? "a" : "b") + i, got.get(i));
                InetSocketAddress expected = (InetSocketAddress) (i % 2 == 0 ? a : b).getLocalAddress();
                assertEquals(expected.getPort(), senders.get(i).getPort());
                assertEquals(LOOPBACK, senders.get(i).getAddress(), "an IPv4 peer is named as IPv4, mapped or not");
            }
        } finally {
            s.close();
        }
    }

    @Test
    void aBatchedDatagramLongerThanTheRoomLeftIsCutToIt() throws IOException {
        Socket s = Socket.newSocketDgram();
        try (DatagramChannel peer = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            NativeDatagram d = open(s);
            for (int i = 0; i < 4; i++) {
                peer.send(text("0123456789"), d.localAddress());
            }
            List<String> got = receive(d, 2, new ArrayList<>()); // the first two start batching
            assertEquals(List.of("0123456789", "0123456789"), got);
            ByteBuffer small = ByteBuffer.allocate(4);
            InetSocketAddress from = null;
            for (int i = 0; i < 3 && from == null; i++) {
                from = d.receive(small.clear());
            }
            assertEquals(peer.getLocalAddress(), from);
            assertEquals("0123", StandardCharsets.US_ASCII.decode(small.flip()).toString());
        } finally {
            s.close();
        }
    }

    @Test
    void heldDatagramsLeaveInOrderWhenFlushedAndNotBefore() throws IOException {
        Socket s = Socket.newSocketDgram();
        try (DatagramChannel peer = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            peer.configureBlocking(false);
            NativeDatagram d = open(s);
            InetSocketAddress to = (InetSocketAddress) peer.getLocalAddress();
            for (int i = 0; i < 40; i++) { // more than one batch holds: the rest is for the caller to send
                ByteBuffer src = text("m" + i);
                if (!d.hold(src, to)) {
                    assertEquals(DatagramBatch.Held.SLOTS, i, "a batch holds " + DatagramBatch.Held.SLOTS + " datagrams");
                    assertEquals(0, src.position(), "a datagram not held is left as it was");
                    break;
                }
                assertEquals(src.limit(), src.position());
            }
            assertNull(peer.receive(ByteBuffer.allocate(64)), "held, not sent");
            List<IOException> refused = new ArrayList<>();
            assertEquals(0, d.flushHeld(refused::add));
            assertEquals(List.of(), refused);
            peer.configureBlocking(true);
            ByteBuffer dst = ByteBuffer.allocate(64);
            for (int i = 0; i < DatagramBatch.Held.SLOTS; i++) {
                assertEquals(d.localAddress().getPort(), ((InetSocketAddress) peer.receive(dst.clear())).getPort());
                assertEquals("m" + i, StandardCharsets.US_ASCII.decode(dst.flip()).toString());
            }
            assertTrue(d.hold(text("again"), to), "a flushed batch takes datagrams again");
            assertEquals(0, d.flushHeld(refused::add));
            peer.receive(dst.clear());
            assertEquals("again", StandardCharsets.US_ASCII.decode(dst.flip()).toString());
        } finally {
            s.close();
        }
    }

    @Test
    void aHeldDatagramTheKernelRefusesIsReportedAndTheRestStillLeave() throws IOException {
        Socket s = Socket.newSocketDgram();
        try (DatagramChannel peer = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            NativeDatagram d = open(s);
            InetSocketAddress to = (InetSocketAddress) peer.getLocalAddress();
            // broadcast without SO_BROADCAST: the kernel refuses it (EACCES)
            InetSocketAddress broadcast = new InetSocketAddress(InetAddress.getByName("255.255.255.255"), to.getPort());
            assertTrue(d.hold(text("first"), to));
            assertTrue(d.hold(text("refused"), broadcast));
            assertTrue(d.hold(text("last"), to));
            List<IOException> refused = new ArrayList<>();
            assertEquals(0, d.flushHeld(refused::add));
            assertEquals(1, refused.size(), () -> "refused: " + refused);
            assertInstanceOf(SocketException.class, refused.get(0));
            ByteBuffer dst = ByteBuffer.allocate(64);
            peer.receive(dst.clear());
            assertEquals("first", StandardCharsets.US_ASCII.decode(dst.flip()).toString());
            peer.receive(dst.clear());
            assertEquals("last", StandardCharsets.US_ASCII.decode(dst.flip()).toString());
        } finally {
            s.close();
        }
    }
}
