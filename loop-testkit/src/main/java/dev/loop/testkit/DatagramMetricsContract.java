package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static dev.loop.testkit.Runs.spin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopMetrics;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the loop's metrics count of its UDP endpoints: datagrams received and sent, pull and push
 * style, and the datagrams the kernel dropped at a socket nobody reads (kernel sockets only).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class DatagramMetricsContract extends DatagramSuite {

    @Test
    void eachDatagramIsCountedOnceEachWay() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = echo(loop); // push style: receives, and sends each back
        DatagramEndpoint client = bind(loop); // pull style
        LoopMetrics before = loop.metrics();
        int n = 10;
        for (int i = 0; i < n; i++) {
            await(loop, client.send(utf8("datagram " + i), server.localAddress()));
            assertEquals("datagram " + i, text(await(loop, client.receive())));
        }
        LoopMetrics m = loop.metrics();
        assertEquals(2L * n, m.datagramsIn() - before.datagramsIn(), "the server's and the client's receives");
        assertEquals(2L * n, m.datagramsOut() - before.datagramsOut(), "the client's sends and the echoes");
        assertEquals(0, m.datagramsDropped(), "nothing overflowed");
        assertEquals(0, m.streamReads(), "datagrams are not stream reads");
    }

    @Test
    void theKernelsDropsAtASocketNobodyReadsAreCountedWhileItIsOpen() throws Exception {
        Assumptions.assumeTrue(Matrix.kernelSockets(cell.backend()), "the kernel counts drops of its own sockets only");
        Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/net/udp")),
                "the kernel says what it dropped in /proc/net/udp (Linux)");
        Loop loop = open();
        // the smallest receive buffer the kernel allows (it rounds up): a few datagrams fill it
        DatagramEndpoint deaf = Datagrams.bind(loop, ANY_PORT, DatagramOptions.defaults().withBufferSizes(0, 1));
        int sent = 200;
        byte[] payload = new byte[1000];
        try (DatagramSocket flood = new DatagramSocket(0, ANY_PORT.getAddress())) {
            for (int i = 0; i < sent; i++) {
                flood.send(new DatagramPacket(payload, payload.length, deaf.localAddress()));
            }
        }
        spin(loop, 1);
        // the first snapshot since the socket opened reads the kernel (later ones, at most once a second)
        long dropped = loop.metrics().datagramsDropped();
        assertTrue(dropped > 0 && dropped <= sent, "the kernel dropped some of " + sent + " into a tiny buffer: " + dropped);
        assertEquals(0, loop.metrics().datagramsIn(), "nobody received");

        deaf.abort();
        await(loop, deaf.closeFuture());
        assertEquals(0, loop.metrics().datagramsDropped(), "the count is of the sockets open now");
    }
}
