package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A connection whose peer reset it while the server was not reading: the kernel has dropped the
 * connection, the loop has not seen it yet. What a timer does with it then (an idle timeout that
 * shuts down its output, as the HTTP example's does before lingering) must close it with an
 * {@link java.io.IOException} (or leave the reset for the next read to find), never throw into the
 * loop's error path.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tcpSockets")
public class PeerResetContract extends NetSuite {

    /** What runs here needs the kernel's sockets; a simulated network's are left out. */
    @org.junit.jupiter.api.BeforeEach
    void kernelSocketsOnly() {
        assumeKernelSockets("the peer that resets is a JDK socket");
    }

    @Test
    void shuttingDownOutputFromATimerAfterAResetClosesTheConnection() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, c -> {
            c.pauseReading(); // the reset stays unread, as on a connection the server waits to answer
            accepted.complete(c);
        });
        try (Socket client = new Socket()) {
            client.connect(server.localAddress());
            Connection c = await(loop, accepted);
            client.setSoLinger(true, 0);
            client.close(); // a reset
            runFor(loop, Duration.ofMillis(100)); // the reset arrives; nobody reads it
            Promise<Void> fired = loop.newPromise();
            loop.callLater(Duration.ofMillis(10), () -> {
                try {
                    c.shutdownOutput(); // the idle timer's "nothing more to say"
                } finally {
                    fired.complete(null);
                }
            });
            await(loop, fired);
            spin(loop, 3);
            assertEquals(List.of(), reported, "nothing reached the loop's exception handler");
            // closed by the failed shutdown, or (where the shutdown was taken) reading shows the reset
            LoopFuture<Integer> read = c.read(ByteBuffer.allocate(16));
            awaitTrue(loop, "the read or the close", () -> read.isDone() || c.closeFuture().isDone());
            assertTrue(c.closeFuture().isDone() || read.isFailed() || read.result() == -1, "the reset went unnoticed");
            assertEquals(List.of(), reported, "nothing reached the loop's exception handler");
        }
    }

}
