package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A polled descriptor (a watch, a UDP socket) whose bytes the program has not read yet is reported
 * once per poll: its one-shot poll is re-armed at the pre-poll pass, after the callbacks had their
 * chance to read. Re-armed straight after its completion, inside the poll, it would find the same
 * bytes at once, complete again, and have the ring entered again and again: two entries per UDP
 * datagram under load where there had been a fifth of one.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LevelPollTest {
    private static final int POLLS = 20;

    @ParameterizedTest(name = "deferred task work: {0}")
    @ValueSource(booleans = {true, false})
    void unreadBytesAreReportedOncePerPoll(boolean deferTaskRun) throws IOException {
        assumeTrue(io.netty.channel.uring.IoUring.isAvailable(), "io_uring does not run here");
        IoUringDriver driver = new IoUringDriver(deferTaskRun);
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (ServerSocket listener = new ServerSocket(0, 1, loopback)) {
            Socket own = Socket.newSocketStream();
            boolean connected = own.connect(new InetSocketAddress(loopback, listener.getLocalPort()));
            try (java.net.Socket peer = listener.accept()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!connected) {
                    assertFalse(System.nanoTime() > deadline, "timed out connecting");
                    connected = own.finishConnect();
                }
                int[] reports = new int[1];
                IoUringNetIo net = (IoUringNetIo) driver.net();
                var watch = net.newWatch(own.intValue(), ops -> reports[0]++);
                watch.interest(true, false);
                OutputStream out = peer.getOutputStream();
                out.write(new byte[64]); // never read: the descriptor stays readable
                out.flush();
                for (int i = 0; i < POLLS; i++) {
                    driver.poll(TimeUnit.MILLISECONDS.toNanos(10));
                }
                assertTrue(reports[0] >= 1, "the unread bytes were reported");
                assertTrue(reports[0] <= POLLS, "at most one report per poll, got " + reports[0] + " in " + POLLS);
                watch.close();
                for (int i = 0; i < 3; i++) {
                    driver.poll(0);
                }
            } finally {
                own.close();
                driver.close();
            }
        }
    }
}
