package dev.loop.net.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ManualClock;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.LimitExceededException;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import dev.loop.testing.ParkingLoopProvider;
import java.io.EOFException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stream helpers of {@link StreamReader} (readLine, readUntil, readExactly) over a scripted
 * byte pipe: the test says which bytes arrive when and when the stream ends, and runs the loop one
 * turn at a time, so partial arrivals, limits, end of stream and cancellation are each hit exactly,
 * with no socket and no timing. The clock is manual: a read timeout fires when the loop has nothing
 * else to do.
 */
class StreamReaderTest {
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40_000);

    private Loop loop;

    @AfterEach
    void close() {
        if (loop != null) {
            loop.close();
        }
    }

    /** A connection open over {@code pipe}, as if accepted, with {@code options}. */
    private StreamConnection open(ScriptedPipe pipe, ConnectionOptions options) {
        loop = Loops.open(LoopOptions.defaults().withBackend("park").withClock(ManualClock.autoAdvancing()));
        ParkingLoopProvider.last.net = new NoListening();
        StreamConnection c = new StreamConnection(NetRegistry.of(loop), options, null, null, PEER);
        c.accepted(pipe);
        return c;
    }

    private StreamConnection open(ScriptedPipe pipe) {
        return open(pipe, ConnectionOptions.defaults());
    }

    /** Runs what is ready now (the readiness the pipe reported, and what it leads to), then returns. */
    private void turn() {
        loop.callSoon(loop::stop);
        loop.runForever();
    }

    private static String text(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Why {@code f}, a read that must have failed by now, failed. */
    private static Throwable failure(LoopFuture<?> f) {
        assertTrue(f.isDone(), "the read should have ended: " + f);
        assertNotNull(f.exception(), () -> "the read should have failed, but gave " + f.result());
        return f.exception();
    }

    // ------------------------------------------------------------------ readExactly

    @Test
    void readExactlyCollectsPartialArrivalsAndKeepsTheRestForTheNextRead() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<ByteBuffer> six = c.readExactly(6);
        assertFalse(six.isDone(), "nothing arrived yet");
        pipe.arrive("ab");
        turn();
        assertFalse(six.isDone(), "2 of 6 bytes");
        pipe.arrive("cd");
        turn();
        assertFalse(six.isDone(), "4 of 6 bytes");
        pipe.arrive("efgh");
        turn();
        assertEquals("abcdef", text(six.result()));

        LoopFuture<ByteBuffer> two = c.readExactly(2);
        assertTrue(two.isDone(), "the 2 bytes read past the first message are buffered: no wait");
        assertEquals("gh", text(two.result()));
    }

    @Test
    void readExactlyFailsWithEofWhenTheStreamEndsShortAndSaysHowShort() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<ByteBuffer> five = c.readExactly(5);
        pipe.arrive("abc");
        pipe.end();
        turn();
        Throwable e = failure(five);
        assertInstanceOf(EOFException.class, e);
        assertTrue(e.getMessage().contains("3 of 5"), e.getMessage());
    }

    // ------------------------------------------------------------------ readLine

    @Test
    void readLineStripsTheTerminatorAndSplitsLinesThatArriveTogetherOrInPieces() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<String> first = c.readLine(100);
        pipe.arrive("GET / HT");
        turn();
        assertFalse(first.isDone(), "no newline yet");
        pipe.arrive("TP/1.1\r\nHost: x\nrest");
        turn();
        assertEquals("GET / HTTP/1.1", first.result(), "CRLF is stripped");
        LoopFuture<String> second = c.readLine(100);
        assertEquals("Host: x", second.result(), "LF alone ends a line too; it was buffered already");
        LoopFuture<String> third = c.readLine(100);
        assertFalse(third.isDone(), "'rest' has no newline yet");
        pipe.arrive("\n");
        turn();
        assertEquals("rest", third.result());
    }

    @Test
    void aLineUpToTheLimitIsReadAndOneByteLongerFailsWithTheBytesStillBuffered() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        pipe.arrive("1234567\n" + "12345678\n");
        LoopFuture<String> fits = c.readLine(8); // 7 characters and the newline: 8 bytes
        assertEquals("1234567", fits.result());

        LoopFuture<String> tooLong = c.readLine(8);
        Throwable e = failure(tooLong);
        LimitExceededException limit = assertInstanceOf(LimitExceededException.class, e);
        assertEquals(8, limit.limit());
        assertTrue(c.isOpen(), "a limit ends the read, not the connection");
        LoopFuture<ByteBuffer> rest = c.readExactly(9);
        assertEquals("12345678\n", text(rest.result()), "the refused line is still there for the next read");
    }

    @Test
    void aLineThatOutgrowsTheLimitAcrossArrivalsFailsOnceTheLimitIsReached() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<String> line = c.readLine(6);
        pipe.arrive("abc");
        turn();
        assertFalse(line.isDone(), "3 of at most 6 bytes, no newline: still waiting");
        pipe.arrive("def");
        turn();
        assertInstanceOf(LimitExceededException.class, failure(line));
    }

    @Test
    void theStreamEndingInTheMiddleOfALineGivesThatLineThenNull() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<String> line = c.readLine(100);
        pipe.arrive("no newline at the end");
        turn();
        assertFalse(line.isDone());
        pipe.end();
        turn();
        assertEquals("no newline at the end", line.result(), "the last, unterminated line is still a line");
        LoopFuture<String> after = c.readLine(100);
        assertTrue(after.isDone());
        assertNull(after.result(), "end of stream: null, as BufferedReader says it");
    }

    // ------------------------------------------------------------------ readUntil

    @Test
    void readUntilReturnsTheBytesWithTheDelimiterEvenWhenTheDelimiterIsSplitAcrossArrivals() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<ByteBuffer> until = c.readUntil("\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 64);
        pipe.arrive("head\r\n\r");
        turn();
        assertFalse(until.isDone(), "three of the delimiter's four bytes");
        pipe.arrive("\nbody");
        turn();
        assertEquals("head\r\n\r\n", text(until.result()));
        assertEquals("body", text(c.readExactly(4).result()));
    }

    @Test
    void readUntilFailsWithTheLimitWhenTheDelimiterDoesNotComeInTime() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        pipe.arrive("0123456789;");
        LoopFuture<ByteBuffer> until = c.readUntil(new byte[] {';'}, 10);
        LimitExceededException e = assertInstanceOf(LimitExceededException.class, failure(until));
        assertEquals(10, e.limit());
        assertEquals("0123456789;", text(c.readUntil(new byte[] {';'}, 11).result()), "one more byte of room finds it");
    }

    @Test
    void readUntilFailsWithEofWhenTheStreamEndsBeforeTheDelimiter() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<ByteBuffer> until = c.readUntil(new byte[] {';'}, 10);
        pipe.arrive("abc");
        pipe.end();
        turn();
        assertInstanceOf(EOFException.class, failure(until));
    }

    @Test
    void theArgumentsAreCheckedBeforeAnythingIsRead() {
        StreamConnection c = open(new ScriptedPipe());
        assertThrows(IllegalArgumentException.class, () -> c.readLine(0));
        assertThrows(IllegalArgumentException.class, () -> c.readUntil(new byte[0], 10));
        assertThrows(IllegalArgumentException.class, () -> c.readUntil(new byte[] {1, 2, 3}, 2));
        assertThrows(IllegalArgumentException.class, () -> c.readExactly(-1));
    }

    // ------------------------------------------------------------------ cancelling and timing out

    @Test
    void aCancelledReadTakesNothingAndTheNextReadGetsEveryByte() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe);
        LoopFuture<ByteBuffer> cancelled = c.readExactly(4);
        pipe.arrive("ab");
        turn();
        assertTrue(cancelled.cancel());
        pipe.arrive("cd\n");
        turn();
        assertTrue(pipe.holds() > 0, "nobody waits: what arrived after the cancel stays in the pipe");

        LoopFuture<String> line = c.readLine(10);
        turn();
        assertEquals("abcd", line.result(), "the 2 bytes the cancelled read had buffered come first");
    }

    @Test
    void aPendingReadBlocksAnotherUntilItIsCancelled() {
        StreamConnection c = open(new ScriptedPipe());
        LoopFuture<String> first = c.readLine(10);
        assertThrows(IllegalStateException.class, () -> c.readLine(10), "one pull read at a time");
        first.cancel();
        LoopFuture<String> second = c.readLine(10);
        assertFalse(second.isDone(), "the slot was freed by the cancel");
    }

    @Test
    void aReadTimeoutFailsTheReadAndKeepsTheBytesItHadBuffered() {
        ScriptedPipe pipe = new ScriptedPipe();
        StreamConnection c = open(pipe, ConnectionOptions.defaults().withReadTimeout(Duration.ofSeconds(5)));
        LoopFuture<String> line = c.readLine(100);
        pipe.arrive("half a li");
        turn();
        assertFalse(line.isDone());
        // nothing else to do: the clock jumps to the timeout, and the loop throws the read's failure
        assertInstanceOf(SocketTimeoutException.class, assertThrows(Exception.class, () -> loop.runUntilComplete(line)));
        assertInstanceOf(SocketTimeoutException.class, failure(line));
        assertTrue(c.isOpen(), "a read timeout ends the read, not the connection");
        pipe.arrive("ne\n");
        LoopFuture<String> again = c.readLine(100);
        turn();
        assertEquals("half a line", again.result());
    }

    // ------------------------------------------------------------------ the scripted pipe

    /**
     * A byte pipe that holds what the test says arrived, hands it out in reads as the kernel would
     * (as much as fits, the rest stays), reports end of stream once told and drained, and reports
     * read readiness, level-triggered, whenever read interest is on and it holds bytes or the end.
     */
    private static final class ScriptedPipe implements IoSocket {
        private final ArrayDeque<ByteBuffer> chunks = new ArrayDeque<>();
        private IoReady ready;
        private boolean wantRead;
        private boolean ended;
        private boolean open = true;

        void arrive(String s) {
            chunks.add(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
            report();
        }

        void end() {
            ended = true;
            report();
        }

        int holds() {
            return chunks.stream().mapToInt(ByteBuffer::remaining).sum();
        }

        private void report() {
            if (wantRead && ready != null && (!chunks.isEmpty() || ended)) {
                ready.onReady(IoReady.READ);
            }
        }

        @Override
        public void attach(IoReady r) {
            this.ready = r;
        }

        @Override
        public boolean finishConnect() {
            return true;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (chunks.isEmpty()) {
                return ended ? -1 : 0;
            }
            int n = 0;
            while (!chunks.isEmpty() && dst.hasRemaining()) {
                ByteBuffer head = chunks.peek();
                int take = Math.min(head.remaining(), dst.remaining());
                ByteBuffer part = head.duplicate();
                part.limit(part.position() + take);
                dst.put(part);
                head.position(head.position() + take);
                n += take;
                if (!head.hasRemaining()) {
                    chunks.poll();
                }
            }
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public void shutdownOutput() {
        }

        @Override
        public void interest(boolean read, boolean write) {
            wantRead = read;
            report();
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public void abort() {
            open = false;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public SocketAddress localAddress() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
        }

        @Override
        public SocketAddress remoteAddress() {
            return PEER;
        }

        @Override
        public <T> void setOption(SocketOption<T> option, T value) {
        }
    }

    /** The loop's sockets: the connection above is made by hand, so nothing is opened through them. */
    private static final class NoListening implements NetIo {
        @Override
        public IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                     IoReady ready) {
            throw new UnsupportedOperationException("not in this test");
        }

        @Override
        public IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready) {
            throw new UnsupportedOperationException("not in this test");
        }

        @Override
        public IoSocket adopt(IoSocket accepted) {
            throw new UnsupportedOperationException("not in this test");
        }
    }
}
