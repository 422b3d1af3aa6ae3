package dev.loop.net.dgram;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.testing.ParkingLoopProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the tests of the datagram layer over {@link LoopbackDatagrams} share, opened afresh for
 * each test: a loop on the parking test backend whose datagram sockets are those (real 127.0.0.1
 * sockets, with what the kernel decides said by the test), and a peer, a blocking JDK channel on
 * 127.0.0.1 that the test sends from and receives on itself.
 */
abstract class OverLoopbackDatagrams {
    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    LoopbackDatagrams sockets;
    Loop loop;
    DatagramChannel peer;

    @BeforeEach
    void open() throws IOException {
        loop = Loops.open(LoopOptions.defaults().withBackend("park"));
        sockets = new LoopbackDatagrams(loop);
        ParkingLoopProvider.last.net = sockets;
        peer = DatagramChannel.open().bind(LOOPBACK);
    }

    @AfterEach
    void close() throws IOException {
        loop.close();
        peer.close();
    }
}
