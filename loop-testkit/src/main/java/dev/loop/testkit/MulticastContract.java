package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Multicast membership on every backend with datagram sockets, IPv4 and IPv6, without a datagram
 * leaving the machine: IPv4 on the loopback interface (an administratively scoped group), IPv6 with
 * an interface-local group ({@code ff01::/16}, which the kernel never puts on the wire). Receivers
 * are bound to the group address itself, so they hear nothing else.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class MulticastContract {
    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(Datagram d) {
        return StandardCharsets.UTF_8.decode(d.data()).toString();
    }

    @Test
    void ipv4GroupsAreJoinedAndLeftOnTheLoopbackInterface() throws Exception {
        Loop loop = loops.open(cell.options());
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        InetAddress group = InetAddress.getByAddress(new byte[] {(byte) 239, (byte) 255, 42,
                (byte) ThreadLocalRandom.current().nextInt(1, 255)});
        DatagramEndpoint receiver = Datagrams.bind(loop, new InetSocketAddress(group, 0));
        DatagramEndpoint sender = Datagrams.bind(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                DatagramOptions.defaults().withMulticastInterface(lo));
        exchange(loop, receiver, sender, group, lo);
    }

    @Test
    void ipv6GroupsAreJoinedAndLeftWithAnInterfaceLocalGroup() throws Exception {
        Loop loop = loops.open(cell.options());
        NetworkInterface nif = null;
        Inet6Address linkLocal = null;
        for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!n.isUp() || !n.supportsMulticast()) {
                continue;
            }
            for (InetAddress a : Collections.list(n.getInetAddresses())) {
                if (a instanceof Inet6Address six && six.isLinkLocalAddress()) {
                    nif = n;
                    linkLocal = six;
                }
            }
        }
        Assumptions.assumeTrue(nif != null, "no interface here is up, multicast-capable and has an IPv6 link-local"
                + " address (the loopback interface takes no IPv6 multicast route)");
        byte[] bytes = InetAddress.getByName("ff01::4242:" + Integer.toHexString(
                ThreadLocalRandom.current().nextInt(1, 0xffff))).getAddress();
        Inet6Address group = Inet6Address.getByAddress(null, bytes, nif); // scoped: bound on that interface only
        DatagramEndpoint receiver = Datagrams.bind(loop, new InetSocketAddress(group, 0));
        DatagramEndpoint sender = Datagrams.bind(loop, new InetSocketAddress(linkLocal, 0),
                DatagramOptions.defaults().withMulticastInterface(nif));
        exchange(loop, receiver, sender, group, nif);
    }

    /** Join, hear, leave, miss, join again: what arrives shows the membership at each send. */
    private static void exchange(Loop loop, DatagramEndpoint receiver, DatagramEndpoint sender, InetAddress group,
                                 NetworkInterface nif) throws Exception {
        InetSocketAddress to = new InetSocketAddress(group, receiver.localAddress().getPort());
        receiver.joinGroup(group, nif);
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> receiver.joinGroup(group, nif));
        assertTrue(twice.getMessage().contains(group.getHostAddress().split("%")[0]), twice.getMessage());
        await(loop, sender.send(utf8("while a member"), to));
        Datagram d = await(loop, receiver.receive());
        assertEquals("while a member", text(d));
        assertEquals(sender.localAddress().getPort(), d.sender().getPort());
        receiver.leaveGroup(group, nif);
        assertThrows(IllegalStateException.class, () -> receiver.leaveGroup(group, nif));
        await(loop, sender.send(utf8("after leaving"), to)); // no member: dropped by the kernel
        receiver.joinGroup(group, nif);
        await(loop, sender.send(utf8("a member again"), to));
        assertEquals("a member again", text(await(loop, receiver.receive())), "the datagram sent between was not received");
        assertThrows(IllegalArgumentException.class,
                () -> receiver.joinGroup(InetAddress.getLoopbackAddress(), nif), "not a multicast address");
        receiver.close();
        assertThrows(java.nio.channels.ClosedChannelException.class, () -> receiver.joinGroup(group, nif),
                "a closed endpoint joins nothing");
    }
}
