package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.unix.Socket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A socket woken from a quiet spell takes its bytes through the ring, not with a {@code recv} of
 * its own: under load a busy server's sockets can all be "quiet" (each one's round trip longer
 * than {@link IoUringSocket#QUIET_NANOS}), and a system call per wake was then one per message.
 * The socket's descriptor is wrapped in a {@link Socket} that counts direct receives; driven
 * through the socket SPI on the test's thread, on a ring with deferred task work (the default) and
 * on one without ({@link IoUringDriver#DEFER_TASK_RUN}), whose completions the kernel posts itself.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class QuietWakeTest {
    /** Netty's socket with its direct receives counted; everything else is Netty's own. */
    private static final class CountingSocket extends Socket {
        int receives;

        CountingSocket(int fd) {
            super(fd);
        }

        @Override
        public int recv(ByteBuffer buf, int pos, int limit) throws IOException {
            receives++;
            return super.recv(buf, pos, limit);
        }
    }

    private IoUringDriver driver;
    private IoUringNetIo net;
    private ServerSocket listener;
    private java.net.Socket peer;
    private CountingSocket counted;
    private IoUringSocket socket;

    private void connect(boolean deferTaskRun) throws IOException {
        assumeTrue(io.netty.channel.uring.IoUring.isAvailable(), "io_uring does not run here");
        driver = new IoUringDriver(deferTaskRun);
        net = (IoUringNetIo) driver.net();
        net.automaticSweeps = false;
        net.quietNanos = 0; // every wake is after a quiet spell, however fast the machine
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        listener = new ServerSocket(0, 1, loopback);
        InetSocketAddress remote = new InetSocketAddress(loopback, listener.getLocalPort());
        Socket own = Socket.newSocketStream();
        boolean connected = own.connect(remote);
        peer = listener.accept();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!connected) {
            assertFalse(System.nanoTime() > deadline, "timed out connecting");
            connected = own.finishConnect();
        }
        counted = new CountingSocket(own.intValue()); // the same descriptor; closed through this one
        socket = new IoUringSocket(net, counted, ops -> { }, true, remote);
        socket.interest(true, false);
    }

    @AfterEach
    void close() throws IOException {
        if (driver == null) {
            return;
        }
        socket.close();
        pollUntil(() -> !counted.isOpen(), "the socket's descriptor closed");
        driver.close();
        peer.close();
        listener.close();
    }

    @ParameterizedTest(name = "deferred task work: {0}")
    @ValueSource(booleans = {true, false})
    void everyQuietWakeReceivesThroughTheRingAndGivesItsBufferBack(boolean deferTaskRun) throws IOException {
        connect(deferTaskRun);
        OutputStream out = peer.getOutputStream();
        for (int round = 0; round < 5; round++) {
            byte[] message = new byte[64 + round];
            for (int i = 0; i < message.length; i++) {
                message[i] = (byte) (round * 17 + i);
            }
            out.write(message);
            out.flush();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            ByteBuffer dst = ByteBuffer.allocate(1024);
            pollUntil(() -> {
                try {
                    int n;
                    while ((n = socket.read(dst.clear())) > 0) {
                        got.write(dst.array(), 0, n);
                    }
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
                return got.size() >= message.length;
            }, "round " + round + ": the message read");
            assertArrayEquals(message, got.toByteArray(), "round " + round);
            assertFalse(socket.holdsReceiveBuffer(),
                    "round " + round + ": a quiet socket polls again without a buffer");
        }
        assertEquals(0, counted.receives, "no receive of its own: each went with the ring's other submissions");
    }

    private void pollUntil(BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            assertFalse(System.nanoTime() > deadline, "timed out waiting: " + what);
            driver.poll(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}
