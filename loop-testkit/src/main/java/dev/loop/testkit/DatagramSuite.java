package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;

import dev.loop.Loop;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;

/**
 * What the UDP suites share, on every backend with datagram sockets x timer strategy x task
 * mechanism of the {@link Matrix}: the cell, its loops, endpoints bound on 127.0.0.1 (an echoing
 * one among them), a port where nothing listens, and text in and out of datagrams. The multicast
 * tests are in {@link MulticastContract}.
 */
public abstract class DatagramSuite {
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
}
