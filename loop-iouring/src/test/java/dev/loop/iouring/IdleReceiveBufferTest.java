package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Receive buffers on this backend are held only by sockets that receive: a socket starts with a
 * buffer-less poll and takes a buffer when bytes arrive; woken after a quiet spell it gives the
 * buffer back as soon as the bytes are read, and a busy socket keeps it until idle for two sweeps,
 * without losing or reordering a byte across the changes. Driven through the socket SPI directly,
 * on the test's thread, with the sweeps called rather than waited for, and what counts as quiet
 * set by each test rather than left to the clock.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IdleReceiveBufferTest {
    private static final int CONNECTIONS = 8;

    private IoUringDriver driver;
    private IoUringNetIo net;
    private final List<Socket> clients = new ArrayList<>();
    private final List<IoUringSocket> accepted = new ArrayList<>();
    private final List<ByteArrayOutputStream> received = new ArrayList<>();

    @BeforeEach
    void connect() throws IOException {
        assumeTrue(io.netty.channel.uring.IoUring.isAvailable(), "io_uring does not run here");
        driver = new IoUringDriver();
        net = (IoUringNetIo) driver.net();
        net.automaticSweeps = false; // the test counts the sweeps: none may come from the clock
        net.quietNanos = Long.MAX_VALUE; // only a socket's first wake is quiet, however slow the machine
        IoServerSocket server = net.listen(new InetSocketAddress("127.0.0.1", 0), 0, Map.of(), ops -> { });
        server.interest(true, false);
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        for (int i = 0; i < CONNECTIONS; i++) {
            clients.add(new Socket("127.0.0.1", port)); // completes in the kernel's backlog
        }
        pollUntil(() -> {
            try {
                IoSocket s;
                while ((s = server.accept()) != null) {
                    accepted.add((IoUringSocket) s);
                    received.add(new ByteArrayOutputStream());
                    s.interest(true, false);
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return accepted.size() == CONNECTIONS;
        }, "every connection accepted");
        server.close();
    }

    @AfterEach
    void close() throws IOException {
        for (Socket c : clients) {
            c.close();
        }
        if (driver != null) {
            for (IoUringSocket s : accepted) {
                s.close();
            }
            driver.poll(0);
            driver.close();
        }
    }

    @Test
    void anIdleSocketHoldsNoBufferATalkingOneDoesAndEveryByteArrivesInOrderAcrossTheChanges() throws IOException {
        assertEquals(0, holding(), "connected but silent: nothing received, no buffer");

        byte[][] first = sendFromEveryClient(100);
        readAll(first);
        assertEquals(0, holding(), "woken after silence: each gave its buffer back once the bytes were read");
        byte[][] again = sendFromEveryClient(100);
        readAll(again);
        assertEquals(CONNECTIONS, holding(), "woken again soon: each keeps a receive (and its buffer) in flight");

        net.sweepIdle();
        assertEquals(CONNECTIONS, holding(), "one sweep is not yet idle");
        net.sweepIdle();
        pollUntil(() -> holding() == 0, "the cancelled receives completed and the buffers went back");

        // A larger burst than the smallest buffer, so the socket also grows it on the way.
        byte[][] second = sendFromEveryClient(200_000);
        readAll(second);
        assertEquals(CONNECTIONS, holding());
    }

    @Test
    void aSocketHoldingUnreadBytesKeepsThemThroughTheSweeps() throws IOException {
        byte[][] sent = sendFromEveryClient(500);
        pollUntil(() -> holding() == CONNECTIONS, "bytes arrived on every socket");
        // nothing read yet: the sweeps must leave the buffers (and what they hold) alone
        net.sweepIdle();
        net.sweepIdle();
        net.sweepIdle();
        driver.poll(0);
        assertEquals(CONNECTIONS, holding());
        readAll(sent);
    }

    @Test
    void buffersGoBackOnlyOnceTheirReceivesCompletedAndAreFreedWhenNoLongerNeeded() throws IOException {
        readAll(sendFromEveryClient(100)); // the first wake is quiet: the next one is busy
        byte[][] sent = sendFromEveryClient(100);
        readAll(sent);
        Buffers buffers = net.buffers();
        assertEquals(CONNECTIONS, holding(), "each socket has a receive in flight into its buffer");
        long givenBack = buffers.givenBack;
        for (IoUringSocket s : accepted) {
            s.close(); // a receive is in flight: its buffer may not go back yet
        }
        assertEquals(givenBack, buffers.givenBack, "no buffer goes back before its cancelled receive completed");
        pollUntil(() -> buffers.givenBack == givenBack + CONNECTIONS, "every cancelled receive completed");
        assertEquals(buffers.live(), buffers.spares(), "no socket holds a buffer: every one left is spare");
        net.sweepIdle(); // the interval in which nothing took a spare starts
        net.sweepIdle();
        assertEquals(0, buffers.spares(), "spares no socket needed for an interval are freed");
        assertEquals(0, buffers.live(), "every buffer allocated was freed");
        accepted.clear();
    }

    @Test
    void aQuietSocketHoldsNoBufferBetweenMessagesAndAllocatesNoneAfterTheFirst() throws IOException {
        net.quietNanos = 0; // every wake is after a quiet spell
        Buffers buffers = net.buffers();
        readAll(sendFromEveryClient(100));
        long allocated = buffers.allocated;
        for (int round = 0; round < 3; round++) {
            readAll(sendFromEveryClient(300 + round));
            assertEquals(0, holding(), "round " + round + ": no quiet socket keeps a buffer once its bytes are read");
            assertEquals(buffers.live(), buffers.spares(), "every buffer left is spare");
        }
        assertEquals(allocated, buffers.allocated, "buffers given back are taken again, not allocated anew");
    }

    @Test
    void aQuietSocketThatFindsMoreWaitingKeepsItsBuffer() throws IOException {
        net.quietNanos = 0;
        // More than the first buffer holds: the kernel says more waits, so the socket is busy.
        byte[][] sent = sendFromEveryClient(3 * Buffers.MIN);
        readAll(sent);
        assertEquals(CONNECTIONS, holding(), "a receive (and its buffer) stays in flight for a busy socket");
    }

    private int holding() {
        int n = 0;
        for (IoUringSocket s : accepted) {
            if (s.holdsReceiveBuffer()) {
                n++;
            }
        }
        return n;
    }

    private byte[][] sendFromEveryClient(int size) throws IOException {
        byte[][] sent = new byte[CONNECTIONS][];
        for (int i = 0; i < CONNECTIONS; i++) {
            byte[] b = new byte[size];
            for (int j = 0; j < size; j++) {
                b[j] = (byte) (i * 31 + j * 7);
            }
            sent[i] = b;
            OutputStream out = clients.get(i).getOutputStream();
            // the kernel's buffers take 200 KB per loopback connection; written whole, unread
            out.write(b);
            out.flush();
        }
        return sent;
    }

    /** Reads from every accepted socket until each holds exactly what its client sent. */
    private void readAll(byte[][] expected) throws IOException {
        for (ByteArrayOutputStream r : received) {
            r.reset();
        }
        ByteBuffer dst = ByteBuffer.allocate(4096);
        pollUntil(() -> {
            for (int i = 0; i < CONNECTIONS; i++) {
                int n;
                try {
                    while ((n = accepted.get(i).read(dst.clear())) > 0) {
                        received.get(i).write(dst.array(), 0, n);
                    }
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
                assertTrue(n == 0, "no end of stream: the client is still connected");
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                if (received.get(i).size() < expected[i].length) {
                    return false;
                }
            }
            return true;
        }, "every byte received");
        for (int i = 0; i < CONNECTIONS; i++) {
            assertArrayEquals(expected[i], received.get(i).toByteArray(), "connection " + i);
        }
    }

    private void pollUntil(BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            assertFalse(System.nanoTime() > deadline, "timed out waiting: " + what);
            driver.poll(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}
