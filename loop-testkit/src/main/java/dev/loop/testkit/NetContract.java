package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.LimitExceededException;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Unix;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The stream socket contract, written once and run on every backend with sockets x timer strategy
 * x task mechanism x transport of the {@link Matrix}: plain TCP on 127.0.0.1, Unix domain sockets
 * in a temporary directory (short paths: {@code sun_path} holds 108 bytes), and TLS on TCP
 * ({@link TestCertificates}), so every behaviour of a connection is also checked through the TLS
 * layer.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetContract {
    /** The most any single wait in these tests may take before it counts as a hang. */
    protected static final Duration PATIENCE = Duration.ofSeconds(8);
    protected static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Parameter
    Cell cell;

    /** The backend under test. */
    protected LoopOptions options() {
        return cell.options();
    }

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    /** Where Unix domain sockets go, removed after each test. */
    @TempDir
    Path socketDir;
    private int socketCount;

    protected Loop open() {
        return loops.open(options());
    }

    /** TLS loads providers and opens files once per JVM: before a test counts descriptors. */
    @BeforeEach
    void warmUpTransport() {
        if (isTls()) {
            TestCertificates.warmUp();
        }
    }

    protected boolean isTls() {
        return "tls".equals(cell.transport());
    }

    /** Runs the loop until {@code f} is done, failing the test after {@link #PATIENCE}. */
    protected static <T> T await(Loop loop, LoopFuture<T> f) {
        return await(loop, f, PATIENCE);
    }

    /**
     * Runs the loop until {@code f} is done, failing the test after {@code patience}: for the few
     * tests whose work (megabytes through TLS on both ends, on one loop) grows with the machine's
     * load, where a fixed short bound would report a busy machine as a hang.
     */
    protected static <T> T await(Loop loop, LoopFuture<T> f, Duration patience) {
        return Waits.await(loop, f, patience);
    }

    /** Runs the loop until {@code f} is done and returns its exception. */
    protected static Throwable awaitFailure(Loop loop, LoopFuture<?> f) {
        return Waits.awaitFailure(loop, f, PATIENCE);
    }

    /** Runs {@code iterations} loop iterations. */
    protected static void spin(Loop loop, int iterations) {
        Waits.spin(loop, iterations);
    }

    // ------------------------------------------------------------------ endpoints, per transport

    /** Listens for the transport under test, on a free loopback address (a new socket path). */
    protected Server listen(Loop loop, ServerOptions options, Consumer<Connection> onAccept) throws IOException {
        return listen(loop, cell.transport().equals("unix") ? newSocketPath() : ANY_PORT, options, onAccept);
    }

    /** Listens for the transport under test on {@code address}. */
    protected Server listen(Loop loop, SocketAddress address, ServerOptions options, Consumer<Connection> onAccept)
            throws IOException {
        return switch (cell.transport()) {
            case "tcp" -> Net.listen(loop, (InetSocketAddress) address, options, onAccept);
            case "unix" -> Unix.listen(loop, address, options, onAccept);
            case "tls" -> Net.listen(loop, (InetSocketAddress) address, options, TestCertificates.server(), onAccept);
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    /** Listens on {@code address}, of the transport under test, with default options. */
    protected Server listenAt(Loop loop, SocketAddress address) throws IOException {
        return listen(loop, address, ServerOptions.defaults(), c -> { });
    }

    /** A path in this test's directory that nothing is bound to yet. */
    protected UnixDomainSocketAddress newSocketPath() {
        return UnixDomainSocketAddress.of(socketDir.resolve("s" + socketCount++));
    }

    /** An address of the transport under test where nothing listens. */
    protected SocketAddress deadAddress() throws IOException {
        return switch (cell.transport()) {
            case "tcp", "tls" -> {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    yield new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
                }
            }
            case "unix" -> newSocketPath();
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    /** Connects to {@code address} over the transport under test. */
    protected LoopFuture<Connection> connectTo(Loop loop, SocketAddress address) {
        return connect(loop, address, ConnectionOptions.defaults());
    }

    /** Skips a test of what only TCP has, saying what. */
    protected void assumeTcp(String why) {
        Assumptions.assumeTrue(cell.transport().equals("tcp"), why);
    }

    protected Server listen(Loop loop, Consumer<Connection> onAccept) throws IOException {
        return listen(loop, ServerOptions.defaults(), onAccept);
    }

    /** Connects to {@code server} over the transport under test. */
    protected LoopFuture<Connection> connect(Loop loop, Server server, ConnectionOptions options) {
        return connect(loop, server.localSocketAddress(), options);
    }

    /** Connects to {@code address} over the transport under test. */
    protected LoopFuture<Connection> connect(Loop loop, SocketAddress address, ConnectionOptions options) {
        return switch (cell.transport()) {
            case "tcp" -> Net.connect(loop, (InetSocketAddress) address, options);
            case "unix" -> Unix.connect(loop, address, options);
            case "tls" -> Net.connect(loop, (InetSocketAddress) address, options, TestCertificates.clientOptions());
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    /** A blocking JDK client socket for the transport under test: an {@link javax.net.ssl.SSLSocket} over TLS. */
    protected Socket blockingSocket(InetSocketAddress addr) throws IOException {
        return switch (cell.transport()) {
            case "tcp" -> new Socket(addr.getAddress(), addr.getPort());
            case "tls" -> TestCertificates.clientOptions().context().getSocketFactory()
                    .createSocket(addr.getAddress(), addr.getPort());
            default -> throw new IllegalArgumentException("unknown transport " + cell.transport());
        };
    }

    protected LoopFuture<Connection> connect(Loop loop, Server server) {
        return connect(loop, server, ConnectionOptions.defaults());
    }

    /** A push-style echo server; at end of stream it closes after sending the rest. */
    protected Server echoServer(Loop loop) throws IOException {
        return listen(loop, c -> c.setHandler((conn, data) -> conn.write(data)));
    }

    /** Reads until end of stream, completing with everything read. */
    protected static LoopFuture<byte[]> readAll(Connection c) {
        Promise<byte[]> all = c.loop().newPromise();
        readRest(c, ByteBuffer.allocate(16 * 1024), new ByteArrayOutputStream(), all);
        return all;
    }

    private static void readRest(Connection c, ByteBuffer buf, ByteArrayOutputStream acc, Promise<byte[]> all) {
        buf.clear();
        c.read(buf).onDone(f -> {
            if (!f.isSuccess()) {
                all.tryFail(f.exception());
            } else if (f.result() < 0) {
                all.complete(acc.toByteArray());
            } else {
                acc.write(buf.array(), 0, f.result());
                readRest(c, buf, acc, all);
            }
        });
    }

    /** Writes {@code data} in chunks cut at random points, each in its own iteration, then half-closes. */
    protected static LoopFuture<Void> writeSplit(Connection c, byte[] data, Random rnd) {
        Promise<Void> done = c.loop().newPromise();
        writeFrom(c, data, 0, rnd, done);
        return done;
    }

    private static void writeFrom(Connection c, byte[] data, int at, Random rnd, Promise<Void> done) {
        if (at == data.length) {
            c.shutdownOutput();
            done.complete(null);
            return;
        }
        int n = Math.min(data.length - at, 1 + rnd.nextInt(Math.max(1, Math.min(data.length, 200_000))));
        LoopFuture<Void> w = c.write(ByteBuffer.wrap(data, at, n));
        LoopFuture<Void> next = c.isWritable() ? w : c.drain();
        next.onDone(f -> {
            if (f.isSuccess()) {
                writeFrom(c, data, at + n, rnd, done);
            } else {
                done.tryFail(f.exception());
            }
        });
    }

    /** An echo round trip of {@code data} over a new connection: what came back. */
    protected LoopFuture<byte[]> echo(Loop loop, Server server, byte[] data, Random rnd) {
        Promise<byte[]> result = loop.newPromise();
        connect(loop, server).onDone(cf -> {
            if (!cf.isSuccess()) {
                result.fail(cf.exception());
                return;
            }
            Connection c = cf.result();
            writeSplit(c, data, rnd);
            readAll(c).onDone(r -> {
                c.close();
                if (r.isSuccess()) {
                    result.complete(r.result());
                } else {
                    result.fail(r.exception());
                }
            });
        });
        return result;
    }

    protected static byte[] randomBytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    // ------------------------------------------------------------------ echo

    @Test
    void echoesRandomSizesByteExactToABlockingClient() throws Exception {
        Loop loop = open();
        Server server = echoServer(loop);
        SocketAddress addr = server.localSocketAddress();
        Random rnd = new Random(1);
        for (int size : new int[] {1, 2, 1000, 65_537, 1 << 20}) {
            byte[] data = randomBytes(rnd, size);
            CompletableFuture<byte[]> client = CompletableFuture.supplyAsync(() -> blockingEcho(addr, data, size));
            byte[] back = await(loop, LoopFuture.from(client, loop));
            assertArrayEquals(data, back, "echo of " + size + " bytes");
        }
    }

    /**
     * A blocking JDK client: a {@link SocketChannel} for a Unix domain socket, a {@link Socket}
     * (an {@link javax.net.ssl.SSLSocket} over TLS) otherwise; one thread writes in random chunks
     * while this one reads.
     */
    private byte[] blockingEcho(SocketAddress addr, byte[] data, long seed) {
        if (!(addr instanceof InetSocketAddress ip)) {
            return blockingChannelEcho(addr, data, seed);
        }
        try (Socket s = blockingSocket(ip)) {
            s.setSoTimeout((int) PATIENCE.toMillis());
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    OutputStream o = s.getOutputStream();
                    Random rnd = new Random(seed);
                    for (int at = 0; at < data.length; ) {
                        int n = Math.min(data.length - at, 1 + rnd.nextInt(100_000));
                        o.write(data, at, n);
                        o.flush();
                        at += n;
                    }
                    s.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            byte[] back = s.getInputStream().readAllBytes();
            writer.join();
            return back;
        } catch (IOException | InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    private static byte[] blockingChannelEcho(SocketAddress addr, byte[] data, long seed) {
        try (SocketChannel s = SocketChannel.open(addr)) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    Random rnd = new Random(seed);
                    for (int at = 0; at < data.length; ) {
                        int n = Math.min(data.length - at, 1 + rnd.nextInt(100_000));
                        ByteBuffer chunk = ByteBuffer.wrap(data, at, n);
                        while (chunk.hasRemaining()) {
                            s.write(chunk);
                        }
                        at += n;
                    }
                    s.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            ByteArrayOutputStream back = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
            while (s.read(buf.clear()) >= 0) {
                back.write(buf.array(), 0, buf.position());
            }
            writer.join();
            return back.toByteArray();
        } catch (IOException | InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void echoesTwoHundredConcurrentConnectionsOfRandomSizes() throws Exception {
        Loop loop = open();
        Server server = echoServer(loop);
        Random rnd = new Random(2);
        List<byte[]> sent = new ArrayList<>();
        List<LoopFuture<byte[]>> back = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            int size = Math.min(1 << 20, 1 + rnd.nextInt(1 << rnd.nextInt(21)));
            byte[] data = randomBytes(rnd, size);
            sent.add(data);
            back.add(echo(loop, server, data, new Random(i)));
        }
        // About 20 MB each way, encrypted and decrypted twice over TLS, all on this one loop.
        List<byte[]> got = await(loop, LoopFuture.all(loop, back), Duration.ofSeconds(45));
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), got.get(i), "connection " + i);
        }
        spin(loop, 3);
        assertEquals(List.of(), server.connections(), "every accepted connection closed after its EOF");
    }

    // ------------------------------------------------------------------ half-close

    @Test
    void halfCloseLetsTheServerAnswerAfterEndOfStream() throws Exception {
        Loop loop = open();
        Server server = listen(loop, c -> readAll(c).onDone(f -> {
            c.write(("answer to " + new String(f.result(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
            c.close();
        }));
        Connection client = await(loop, connect(loop, server));
        client.write("question".getBytes(StandardCharsets.UTF_8));
        client.shutdownOutput();
        byte[] answer = await(loop, readAll(client));
        assertEquals("answer to question", new String(answer, StandardCharsets.UTF_8));
        assertTrue(client.isInputShutdown());
    }

    // ------------------------------------------------------------------ failures

    @Test
    void aResetWhileReadingFailsTheReadAndLeaksNothing() throws Exception {
        assumeTcp("a Unix domain socket has no reset: a peer that closes with nothing unread ends the stream");
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::complete);
        resetWhileReading(loop, server, accepted); // once to warm up lazily opened JDK resources
        long before = Fds.count();
        Promise<Connection> again = loop.newPromise();
        Server second = listen(loop, again::complete);
        long withServer = Fds.count();
        resetWhileReading(loop, second, again);
        spin(loop, 3); // the selector releases a closed channel's fd on its next select
        if (before >= 0) {
            assertEquals(withServer, Fds.count(), "file descriptors leaked");
        }
        server.close();
        second.close();
        spin(loop, 3);
        if (before >= 0) {
            assertEquals(before - 1, Fds.count(), "file descriptors leaked");
        }
    }

    private void resetWhileReading(Loop loop, Server server, Promise<Connection> accepted) {
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        LoopFuture<Integer> read = conn.read(ByteBuffer.allocate(100));
        spin(loop, 2);
        assertFalse(read.isDone());
        client.abort();
        Throwable e = awaitFailure(loop, read);
        assertInstanceOf(IOException.class, e);
        await(loop, conn.closeFuture());
        assertFalse(conn.isOpen());
        assertFalse(client.isOpen());
    }

    @Test
    void aResetWhileWritingFailsThePendingWrite() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop,
                ServerOptions.defaults().withAccepted(ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024)),
                accepted::complete);
        Connection client = await(loop, connect(loop, server,
                ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024)));
        Connection conn = await(loop, accepted);
        LoopFuture<Void> write = conn.write(new byte[8 << 20]); // the client never reads: it stays queued
        spin(loop, 3);
        assertFalse(write.isDone());
        assertTrue(conn.queuedBytes() > 0);
        client.abort();
        Throwable e = awaitFailure(loop, write);
        assertInstanceOf(IOException.class, e);
        await(loop, conn.closeFuture());
        assertEquals(0, conn.queuedBytes(), "the queue is dropped with the connection");
        assertInstanceOf(IOException.class, awaitFailure(loop, conn.write(new byte[1])));
    }

    @Test
    void aRefusedConnectFailsPromptlyNamingTheAddress() throws Exception {
        SocketAddress dead = deadAddress();
        Loop loop = open();
        long start = System.nanoTime();
        Throwable e = awaitFailure(loop, connectTo(loop, dead));
        assertInstanceOf(ConnectException.class, e);
        String named = dead instanceof InetSocketAddress i ? ":" + i.getPort() : dead.toString();
        assertTrue(e.getMessage().contains(named), e.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "refusal took too long");
    }

    @Test
    void bindingAnAddressInUseFailsNamingTheAddress() throws Exception {
        Loop loop = open();
        Server first = listen(loop, c -> { });
        BindException e = assertThrows(BindException.class, () -> listenAt(loop, first.localSocketAddress()));
        assertTrue(e.getMessage().contains(first.localSocketAddress().toString()), e.getMessage());
        assertTrue(first.isOpen(), "the first server goes on");
    }

    @Test
    void aReadTimeoutFailsTheReadButKeepsTheConnection() throws Exception {
        Loop loop = open();
        Server server = listen(loop, c -> { });
        Connection client = await(loop, connect(loop, server,
                ConnectionOptions.defaults().withReadTimeout(Duration.ofMillis(30))));
        Throwable e = awaitFailure(loop, client.read(ByteBuffer.allocate(10)));
        assertInstanceOf(SocketTimeoutException.class, e);
        assertTrue(client.isOpen());
    }

    @Test
    void anIdleConnectionIsAbortedAfterItsIdleTimeout() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        long[] acceptedAt = new long[1];
        // The connection is idle from its accept on (nothing reads the byte the client sends), so
        // that is where the 40 ms start: timing from a later point would let a busy machine's
        // delay between the accept and that point look like an early close.
        Server server = listen(loop,
                ServerOptions.defaults().withAccepted(ConnectionOptions.defaults().withIdleTimeout(Duration.ofMillis(40))),
                c -> {
                    acceptedAt[0] = loop.time();
                    accepted.complete(c);
                });
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        client.write(new byte[] {1});
        await(loop, conn.closeFuture());
        assertTrue(loop.time() - acceptedAt[0] >= TimeUnit.MILLISECONDS.toNanos(30), "closed before it was idle");
        assertFalse(conn.isOpen());
        assertInstanceOf(IOException.class, awaitFailure(loop, client.read(ByteBuffer.allocate(1))), "the peer sees a reset");
    }

    // ------------------------------------------------------------------ backpressure

    @Test
    void aWriterToAStalledReaderStaysWithinTheHighWatermarkAndResumes() throws Exception {
        Loop loop = open();
        int chunk = 16 * 1024;
        int high = 64 * 1024;
        long total = 8L << 20;
        ConnectionOptions small = ConnectionOptions.defaults().withBufferSizes(32 * 1024, 32 * 1024).withWatermarks(16 * 1024, high);
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, ServerOptions.defaults().withAccepted(small), accepted::complete);
        Connection writer = await(loop, connect(loop, server, small));
        Connection reader = await(loop, accepted);
        long[] sent = {0};
        long[] maxQueued = {0};
        Promise<Void> allSent = loop.newPromise();
        byte[] data = new byte[chunk];
        Runnable[] pump = new Runnable[1];
        pump[0] = () -> {
            while (sent[0] < total) {
                writer.write(data);
                sent[0] += chunk;
                maxQueued[0] = Math.max(maxQueued[0], writer.queuedBytes());
                if (!writer.isWritable()) {
                    writer.drain().onDone(f -> pump[0].run());
                    return;
                }
            }
            writer.shutdownOutput();
            allSent.tryComplete(null);
        };
        loop.callSoon(pump[0]);
        Promise<Void> stalled = loop.newPromise();
        loop.callLater(Duration.ofMillis(100), () -> stalled.complete(null));
        await(loop, stalled);
        assertTrue(sent[0] < total, "the writer should be stalled by a reader that does not read");
        assertFalse(writer.isWritable());
        byte[] got = await(loop, readAll(reader));
        await(loop, allSent);
        assertEquals(total, got.length);
        assertTrue(maxQueued[0] <= high + chunk, "queued " + maxQueued[0] + " bytes, high watermark " + high);
    }

    // ------------------------------------------------------------------ loop close

    @Test
    void closingTheLoopClosesItsSocketsAndFailsWhatIsPending() throws Exception {
        long before = Fds.count();
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::tryComplete);
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        LoopFuture<Integer> clientRead = client.read(ByteBuffer.allocate(10));
        LoopFuture<String> serverLine = conn.readLine(100);
        Connection idle = await(loop, connect(loop, server)); // accepted, never read
        spin(loop, 2);
        loop.close();
        for (LoopFuture<?> f : List.of(clientRead, serverLine)) {
            assertTrue(f.isDone(), f + " still pending after close");
            assertInstanceOf(IOException.class, f.exception());
        }
        for (Connection c : List.of(client, conn, idle)) {
            assertFalse(c.isOpen(), c + " still open");
            assertTrue(c.closeFuture().isDone());
        }
        assertFalse(server.isOpen());
        if (before >= 0) {
            assertEquals(before, Fds.count(), "file descriptors leaked");
        }
    }

    // ------------------------------------------------------------------ stream helpers

    @Test
    void readExactlyAndReadLineAcrossSplitPacketsAndAnOverlongLine() throws Exception {
        Loop loop = open();
        Server server = listen(loop, c -> {
            c.write("abc".getBytes(StandardCharsets.US_ASCII));
            loop.callLater(Duration.ofMillis(10), () -> c.write("defgh".getBytes(StandardCharsets.US_ASCII)));
            loop.callLater(Duration.ofMillis(20), () -> c.write("ij12".getBytes(StandardCharsets.US_ASCII)));
            loop.callLater(Duration.ofMillis(30), () -> c.write("34|first\r\nsecond\n".getBytes(StandardCharsets.US_ASCII)));
            loop.callLater(Duration.ofMillis(40), () -> {
                c.write(("x".repeat(100) + "\nlast").getBytes(StandardCharsets.US_ASCII));
                c.shutdownOutput();
            });
        });
        Connection client = await(loop, connect(loop, server));
        ByteBuffer ten = await(loop, client.readExactly(10));
        assertEquals("abcdefghij", StandardCharsets.US_ASCII.decode(ten).toString());
        ByteBuffer until = await(loop, client.readUntil(new byte[] {'|'}, 10));
        assertEquals("1234|", StandardCharsets.US_ASCII.decode(until).toString());
        assertEquals("first", await(loop, client.readLine(50)));
        assertEquals("second", await(loop, client.readLine(50)));
        Throwable tooLong = awaitFailure(loop, client.readLine(50));
        assertInstanceOf(LimitExceededException.class, tooLong);
        assertTrue(tooLong.getMessage().contains("50"), tooLong.getMessage());
        ByteBuffer rest = await(loop, client.readExactly(101)); // the over-long line stayed buffered
        assertEquals('\n', rest.get(100));
        assertEquals("last", await(loop, client.readLine(50)));
        assertNull(await(loop, client.readLine(50)));
        assertInstanceOf(EOFException.class, awaitFailure(loop, client.readExactly(1)));
    }

    // ------------------------------------------------------------------ everything at once

    @Test
    void anEchoServerAProducerConsumerPairAndACountdownProgressTogether() throws Exception {
        Loop loop = open();
        List<String> events = new ArrayList<>();
        // countdown: 5..1, one tick per 2 ms
        Promise<Void> countdown = loop.newPromise();
        int[] count = {5};
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            events.add("tick " + count[0]);
            if (--count[0] == 0) {
                countdown.complete(null);
            } else {
                loop.callLater(Duration.ofMillis(2), tick[0]);
            }
        };
        loop.callSoon(tick[0]);
        // producer/consumer: a queue and a waiting promise
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        Promise<?>[] waiting = {null};
        Promise<Void> consumed = loop.newPromise();
        for (int i = 0; i < 5; i++) {
            int item = i;
            loop.callLater(Duration.ofMillis(1 + 2L * i), () -> {
                queue.add(item);
                events.add("produced " + item);
                if (waiting[0] != null) {
                    Promise<?> w = waiting[0];
                    waiting[0] = null;
                    w.complete(null);
                }
            });
        }
        int[] got = {0};
        Runnable[] consume = new Runnable[1];
        consume[0] = () -> {
            while (!queue.isEmpty()) {
                events.add("consumed " + queue.poll());
                got[0]++;
            }
            if (got[0] == 5) {
                consumed.complete(null);
            } else {
                Promise<Void> w = loop.newPromise();
                waiting[0] = w;
                w.onDone(f -> consume[0].run());
            }
        };
        loop.callSoon(consume[0]);
        // echo: five lines, one round trip each
        Server server = echoServer(loop);
        Promise<Void> echoed = loop.newPromise();
        connect(loop, server).onDone(cf -> {
            Connection c = cf.result();
            echoLines(c, 0, events, echoed);
        });
        await(loop, LoopFuture.all(loop, List.of(countdown, consumed, echoed)));
        assertEquals(5, events.stream().filter(e -> e.startsWith("tick")).count());
        assertEquals(5, events.stream().filter(e -> e.startsWith("consumed")).count());
        assertEquals(5, events.stream().filter(e -> e.startsWith("echo")).count());
        assertNotNull(server.localSocketAddress());
    }

    private static void echoLines(Connection c, int i, List<String> events, Promise<Void> done) {
        if (i == 5) {
            c.close();
            done.complete(null);
            return;
        }
        c.write(("line " + i + "\n").getBytes(StandardCharsets.UTF_8));
        c.readLine(100).onDone(f -> {
            events.add("echo " + f.result());
            echoLines(c, i + 1, events, done);
        });
    }

    // ------------------------------------------------------------------ misc

    @Test
    void addressesAndOptionsAreReported() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::complete);
        Connection client = await(loop, connect(loop, server));
        Connection conn = await(loop, accepted);
        assertEquals(server.localSocketAddress(), client.remoteSocketAddress());
        assertEquals(client.localSocketAddress(), conn.remoteSocketAddress());
        if (!cell.transport().equals("unix")) {
            assertEquals(server.localAddress(), client.remoteAddress());
            assertEquals(server.localAddress().getPort(), conn.localAddress().getPort());
        } else {
            assertEquals(server.localSocketAddress(), conn.localSocketAddress());
            assertEquals("", client.localSocketAddress().toString(), "a client's Unix socket is unnamed");
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, client::remoteAddress);
            assertTrue(e.getMessage().contains("remoteSocketAddress"), e.getMessage());
            assertThrows(UnsupportedOperationException.class, server::localAddress);
        }
        assertEquals(List.of(conn), server.connections());
        server.close(true);
        spin(loop, 2);
        assertFalse(conn.isOpen());
        assertFalse(server.isOpen());
    }
}
