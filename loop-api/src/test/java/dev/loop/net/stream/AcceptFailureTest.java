package dev.loop.net.stream;

import dev.loop.net.transport.RepeatedFailure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ManualClock;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import dev.loop.testing.ParkingLoopProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A server whose accept() keeps failing, as at the open-file limit, on a listener the test drives
 * and a clock that jumps to the next timer: the loop survives an error path that itself fails,
 * accepting pauses {@link TcpServer#ACCEPT_BACKOFF} per failure, and the log gets one record per
 * {@link RepeatedFailure#INTERVAL} that counts the rest.
 */
class AcceptFailureTest {
    private static final InetSocketAddress ADDRESS = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);

    private static Loop open(FakeListener listener) {
        Loop loop = Loops.open(LoopOptions.defaults().withBackend("park").withClock(ManualClock.autoAdvancing()));
        ParkingLoopProvider.last.net = listener;
        return loop;
    }

    @Test
    void anAcceptFailureWhoseReportFailsTooLeavesTheLoopRunningAndAccepting() throws IOException {
        FakeListener listener = new FakeListener();
        Logger log = Logger.getLogger("dev.loop");
        boolean parents = log.getUseParentHandlers();
        Handler broken = new Handler() {
            @Override
            public void publish(LogRecord record) {
                throw new IllegalStateException("no descriptor left to format a log record");
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.setUseParentHandlers(false);
        log.addHandler(broken);
        try (Loop loop = open(listener)) {
            // what the open-file limit does to the whole error path: the handler fails, and so does logging
            loop.setExceptionHandler((l, message, error, source) -> {
                throw new IllegalStateException("the handler cannot log either");
            });
            List<Connection> accepted = new ArrayList<>();
            Net.listen(loop, ADDRESS, accepted::add);
            listener.failing = true;
            loop.callLater(Duration.ofMillis(1_050), () -> {
                listener.failing = false;
                listener.pending = 1;
            });
            loop.callLater(Duration.ofSeconds(2), loop::stop);
            loop.runForever(); // before: the report threw out of runOnce and ended the loop here

            assertEquals(1, accepted.size(), "the server accepts again once descriptors are back");
            assertTrue(listener.failures >= 10 && listener.failures <= 12,
                    "one accept per " + TcpServer.ACCEPT_BACKOFF.toMillis() + " ms back-off over 1 s: " + listener.failures);
        } finally {
            log.removeHandler(broken);
            log.setUseParentHandlers(parents);
        }
    }

    @Test
    void repeatedAcceptFailuresAreLoggedOncePerIntervalWithTheCountOfTheRest() throws IOException {
        FakeListener listener = new FakeListener();
        try (Loop loop = open(listener)) {
            List<String> records = new ArrayList<>();
            loop.setExceptionHandler((l, message, error, source) -> records.add(message));
            Net.listen(loop, ADDRESS, c -> { });
            listener.failing = true;
            loop.callLater(Duration.ofMillis(60_050), () -> {
                listener.failing = false;
                listener.pending = 1;
            });
            loop.callLater(Duration.ofSeconds(61), loop::stop);
            loop.runForever();

            long interval = RepeatedFailure.INTERVAL.toSeconds();
            assertTrue(listener.failures >= 590 && listener.failures <= 610, "failures in 60 s: " + listener.failures);
            assertTrue(records.size() <= 60 / interval + 2, "at most one record per " + interval + " s, got "
                    + records.size() + ", the first: " + records.get(0));
            assertTrue(records.get(records.size() - 1).contains("works again"), records.toString());
            // no failure goes uncounted: the first record is one, each later one counts those it summarises
            long told = 0;
            Pattern untold = Pattern.compile("(\\d+) more failures?");
            for (String r : records) {
                Matcher m = untold.matcher(r);
                if (m.find()) {
                    told += Long.parseLong(m.group(1));
                } else if (r.contains("failed")) {
                    told++;
                }
            }
            assertEquals(listener.failures, told, records.toString());
        }
    }

    /** A listening socket that fails or accepts as the test says, readable whenever it is asked to be. */
    static final class FakeListener implements NetIo, IoServerSocket {
        volatile boolean failing;
        volatile int pending;
        int failures;
        private IoReady ready;
        private boolean interested;

        @Override
        public IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                     IoReady ready) {
            this.ready = ready;
            return this;
        }

        @Override
        public IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready) {
            throw new UnsupportedOperationException();
        }

        @Override
        public IoSocket adopt(IoSocket accepted) {
            return accepted;
        }

        @Override
        public IoSocket accept() throws IOException {
            if (!interested) {
                throw new AssertionError("accept() while accepting is paused");
            }
            if (failing) {
                failures++;
                throw new IOException("Too many open files");
            }
            if (pending > 0) {
                pending--;
                return new FakeSocket();
            }
            return null;
        }

        @Override
        public void interest(boolean read, boolean write) {
            interested = read;
            if (read) {
                ready.onReady(IoReady.READ); // level-triggered: always something to accept or fail on
            }
        }

        @Override
        public InetSocketAddress localAddress() {
            return ADDRESS;
        }

        @Override
        public void close() {
            interested = false;
        }

        @Override
        public boolean isOpen() {
            return true;
        }
    }

    /** An accepted socket that never has anything to read and takes every write; other tests extend it. */
    static class FakeSocket implements IoSocket {
        private boolean open = true;

        @Override
        public void attach(IoReady ready) {
        }

        @Override
        public boolean finishConnect() {
            return true;
        }

        @Override
        public int read(ByteBuffer dst) {
            return 0;
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
        public void abort() {
            open = false;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), 40_000);
        }

        @Override
        public <T> void setOption(SocketOption<T> option, T value) {
        }

        @Override
        public void interest(boolean read, boolean write) {
        }

        @Override
        public InetSocketAddress localAddress() {
            return ADDRESS;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public boolean isOpen() {
            return open;
        }
    }
}
