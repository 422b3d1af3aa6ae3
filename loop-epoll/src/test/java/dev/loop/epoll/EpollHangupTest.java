package dev.loop.epoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.testkit.Fds;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.Promise;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.TimerHandle;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer that hangs up (EPOLLRDHUP, EPOLLHUP, EPOLLERR) fails what is pending, and the socket's
 * descriptor is closed exactly once; a paused socket whose peer hung up does not spin the loop.
 * The peer is a blocking JDK socket on another thread's terms, so only the server side is ours.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class EpollHangupTest {
    private static final Duration PATIENCE = Duration.ofSeconds(8);
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    /** Blocking polls a loop may make while idle for {@link #IDLE} without counting as spinning. */
    private static final int MAX_IDLE_SLEEPS = 20;
    private static final Duration IDLE = Duration.ofMillis(100);

    private Loop loop;
    private EpollDriver io;

    @BeforeEach
    void open() throws IOException {
        // The JDK opens some descriptors lazily on its first socket: let it, before counting.
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket c = new Socket(InetAddress.getLoopbackAddress(), s.getLocalPort());
             Socket a = s.accept()) {
            a.getOutputStream().write(0);
            c.getInputStream().read();
        }
        loop = Loops.open(LoopOptions.defaults().withBackend(CountingEpollProvider.NAME));
        io = CountingEpollProvider.last;
    }

    @AfterEach
    void close() {
        loop.close();
    }

    private <T> T await(LoopFuture<T> f) {
        TimerHandle watchdog = loop.callLater(PATIENCE, loop::stop);
        try {
            return loop.runUntilComplete(f);
        } finally {
            watchdog.cancel();
        }
    }

    private Throwable awaitFailure(LoopFuture<?> f) {
        try {
            await(f);
        } catch (Throwable expected) {
            return expected;
        }
        throw new AssertionError("expected " + f + " to fail");
    }

    private void idle(Duration d) {
        Promise<Void> p = loop.newPromise();
        loop.callLater(d, () -> p.complete(null));
        await(p);
    }

    private static void reset(Socket peer) throws IOException {
        peer.setSoLinger(true, 0); // close sends RST: the server side sees EPOLLERR | EPOLLHUP
        peer.close();
    }

    @Test
    void aResetFailsAPendingReadAndAPendingWriteAndClosesTheFdOnce() throws Exception {
        ConnectionOptions small = ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024);
        Promise<Connection> accepted = loop.newPromise();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults().withAccepted(small), accepted::complete);
        long baseline = Fds.count();
        try (Socket peer = new Socket()) {
            peer.setReceiveBufferSize(32 * 1024);
            peer.connect(server.localAddress());
            Connection conn = await(accepted);
            LoopFuture<Integer> read = conn.read(ByteBuffer.allocate(100));
            LoopFuture<Void> write = conn.write(new byte[8 << 20]); // the peer never reads: it stays queued
            idle(Duration.ofMillis(20));
            assertFalse(read.isDone());
            assertFalse(write.isDone());
            reset(peer);
            assertInstanceOf(IOException.class, awaitFailure(read));
            assertInstanceOf(IOException.class, awaitFailure(write));
            await(conn.closeFuture());
            assertFalse(conn.isOpen());
        }
        assertEquals(baseline, Fds.count(), "file descriptors leaked");
        assertTheNextConnectionIsUntouched(server, baseline);
    }

    @Test
    void aPeerThatClosesWhileReadingIsPausedNeitherSpinsNorLeaks() throws Exception {
        Promise<Connection> accepted = loop.newPromise();
        Server server = Net.listen(loop, ANY_PORT, accepted::complete);
        long baseline = Fds.count();
        Promise<Void> eof = loop.newPromise();
        try (Socket peer = new Socket()) {
            peer.connect(server.localAddress());
            Connection conn = await(accepted);
            conn.setHandler(new ConnectionHandler() {
                @Override
                public void onData(Connection c, ByteBuffer data) {
                }

                @Override
                public void onEof(Connection c) {
                    eof.complete(null);
                }
            });
            conn.pauseReading();
            idle(Duration.ofMillis(10));
            peer.getOutputStream().write("bye".getBytes(StandardCharsets.US_ASCII));
            peer.close(); // FIN after data: EPOLLIN | EPOLLRDHUP, then EPOLLHUP once ours closes too
            idle(Duration.ofMillis(20));
            long sleepsBefore = io.sleeps();
            idle(IDLE);
            long sleeps = io.sleeps() - sleepsBefore;
            assertTrue(sleeps <= MAX_IDLE_SLEEPS, "a paused socket whose peer hung up woke the loop " + sleeps
                    + " times in " + IDLE.toMillis() + " ms");
            assertFalse(eof.isDone(), "paused: end of stream must wait for resumeReading");
            conn.resumeReading();
            await(eof);
            await(conn.close());
        }
        idle(Duration.ofMillis(10));
        assertEquals(baseline, Fds.count(), "file descriptors leaked");
        assertTheNextConnectionIsUntouched(server, baseline);
    }

    @Test
    void aResetWhileConnectingOrIdleIsReportedOnceAndTheLoopCloseClosesNothingTwice() throws Exception {
        Promise<Connection> accepted = loop.newPromise();
        Server server = Net.listen(loop, ANY_PORT, accepted::complete);
        long baseline = Fds.count();
        Socket peer = new Socket();
        peer.connect(server.localAddress());
        Connection conn = await(accepted);
        LoopFuture<String> line = conn.readLine(100);
        reset(peer);
        assertInstanceOf(IOException.class, awaitFailure(line));
        await(conn.closeFuture());
        assertEquals(baseline, Fds.count(), "file descriptors leaked");
        // Closing again, through the connection and then through the loop, must not close a
        // descriptor number that a newer socket now holds.
        conn.close();
        conn.abort();
        assertTheNextConnectionIsUntouched(server, baseline);
    }

    /** A new connection (likely given the freed descriptor numbers) still echoes: nothing closed it. */
    private void assertTheNextConnectionIsUntouched(Server server, long baseline) throws Exception {
        Promise<Connection> next = loop.newPromise();
        Server echo = Net.listen(loop, ANY_PORT, c -> {
            c.setHandler((conn, data) -> conn.write(data));
            next.complete(c);
        });
        try (Socket peer = new Socket()) {
            peer.connect(echo.localAddress());
            Connection c = await(next);
            peer.getOutputStream().write('x');
            Promise<Integer> got = loop.newPromise();
            Thread reader = new Thread(() -> {
                try {
                    got.complete(peer.getInputStream().read());
                } catch (IOException e) {
                    got.fail(e);
                }
            });
            reader.start();
            assertEquals('x', await(got));
            reader.join();
            assertTrue(c.isOpen());
        }
        echo.close(true);
        server.close(true);
        idle(Duration.ofMillis(10));
        assertEquals(baseline - 1, Fds.count(), "only the first server's descriptor should be gone");
    }
}
