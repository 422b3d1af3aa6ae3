package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import dev.loop.net.LinuxAbstractAddress;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Unix;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The failures a socket meets, provoked on loopback, must be the same JDK exception, class and
 * message, on every backend: a user's {@code catch (SocketException e)} cannot depend on the
 * backend, and no type of the library a backend is built on (Netty's) may reach the user, not even
 * as a cause. Connects and binds name their address; failures on an open connection do not. See
 * {@code dev.loop.spi.SocketErrors} for the table the backends throw from.
 *
 * <p>What loopback cannot provoke is left to that table's own test: an unreachable host or network
 * (127.0.0.1 is always routed), and the connect timeout of the kernel (minutes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#backendsOverTcp")
public class ErrorContract extends NetSuite {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** How many writes a test makes before giving up on the failure it waits for. */
    private static final int MAX_WRITES = 200;

    @TempDir
    Path dir;

    // ------------------------------------------------------------------ connecting

    @Test
    void aConnectToAClosedPortIsConnectionRefusedNamingTheAddress() throws Exception {
        Loop loop = open();
        InetSocketAddress closed = closedPort();
        Throwable e = awaitFailure(loop, Net.connect(loop, closed));
        assertFailure(e, ConnectException.class, "Connection refused: " + closed);
    }

    @Test
    void aConnectToAFullAcceptQueueTimesOutNamingTheAddress() throws Exception {
        assumeKernelSockets("the full accept queue is a JDK server socket");
        Loop loop = open();
        // Linux drops a SYN while the accept queue (backlog 1 holds 2) is full: the connect hangs
        try (ServerSocket full = new ServerSocket(0, 1, LOOPBACK)) {
            InetSocketAddress address = (InetSocketAddress) full.getLocalSocketAddress();
            List<SocketChannel> fillers = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    SocketChannel c = SocketChannel.open();
                    fillers.add(c);
                    c.configureBlocking(false);
                    c.connect(address);
                }
                Thread.sleep(100); // the fillers' handshakes complete in the kernel
                Throwable e = awaitFailure(loop,
                        Net.connect(loop, address, ConnectionOptions.defaults().withConnectTimeout(Duration.ofMillis(300))));
                assertFailure(e, SocketTimeoutException.class, "connect to " + address + " timed out after 300 ms");
            } finally {
                for (SocketChannel c : fillers) {
                    c.close();
                }
            }
        }
    }

    @Test
    void aUnixConnectToAMissingPathIsNoSuchFileNamingThePath() throws Exception {
        assumeTrue(Matrix.offers(cell.backend(), "unix"), cell.backend() + " has no Unix domain sockets");
        Loop loop = open();
        Path missing = dir.resolve("missing");
        Throwable e = awaitFailure(loop, Unix.connect(loop, UnixDomainSocketAddress.of(missing)));
        assertFailure(e, ConnectException.class, "No such file or directory: " + missing);
    }

    @Test
    void aUnixConnectToAStaleSocketIsConnectionRefusedNamingThePath() throws Exception {
        assumeTrue(Matrix.offers(cell.backend(), "unix"), cell.backend() + " has no Unix domain sockets");
        assumeKernelSockets("the stale socket is a file a JDK socket left behind");
        Loop loop = open();
        UnixDomainSocketAddress stale = UnixDomainSocketAddress.of(dir.resolve("stale"));
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(stale); // closing leaves the file, with nobody listening on it
        }
        Throwable e = awaitFailure(loop, Unix.connect(loop, stale));
        assertFailure(e, ConnectException.class, "Connection refused: " + stale.getPath());
    }

    // ------------------------------------------------------------------ an open connection

    @Test
    void aReadAfterThePeerResetIsConnectionReset() throws Exception {
        assumeKernelSockets("the peer that resets is a JDK socket");
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::complete);
        try (Socket peer = new Socket()) {
            peer.connect(server.localAddress());
            Connection c = await(loop, accepted);
            reset(peer);
            Throwable e = awaitFailure(loop, c.read(ByteBuffer.allocate(16)));
            assertFailure(e, SocketException.class, "Connection reset");
        }
    }

    @Test
    void aWriteAfterThePeerResetIsConnectionReset() throws Exception {
        assumeKernelSockets("the peer that resets is a JDK socket");
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listen(loop, accepted::complete);
        try (Socket peer = new Socket()) {
            peer.connect(server.localAddress());
            Connection c = await(loop, accepted);
            reset(peer);
            assertFailure(firstFailedWrite(loop, c), SocketException.class, "Connection reset");
        }
    }

    @Test
    void aWriteToAUnixPeerThatClosedIsBrokenPipe() throws Exception {
        assumeTrue(Matrix.offers(cell.backend(), "unix"), cell.backend() + " has no Unix domain sockets");
        // TCP answers such a write with a reset; a Unix domain socket fails it with EPIPE at once
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        UnixDomainSocketAddress path = UnixDomainSocketAddress.of(dir.resolve("pipe"));
        Unix.listen(loop, path, accepted::complete);
        Connection peer = await(loop, Unix.connect(loop, path));
        Connection c = await(loop, accepted);
        peer.abort(); // gone with nothing unread: no reset to read, only the pipe broken
        assertFailure(firstFailedWrite(loop, c), SocketException.class, "Broken pipe");
    }

    @Test
    void aReadWithNoDataWithinTheReadTimeoutIsASocketTimeout() throws Exception {
        Loop loop = open();
        Server server = listen(loop, accepted -> { });
        Connection c = await(loop, Net.connect(loop, server.localAddress(),
                ConnectionOptions.defaults().withReadTimeout(Duration.ofMillis(100))));
        Throwable e = awaitFailure(loop, c.read(ByteBuffer.allocate(16)));
        assertFailure(e, SocketTimeoutException.class, "no data from " + server.localAddress() + " within 100 ms");
    }

    // ------------------------------------------------------------------ datagrams

    @Test
    void aConnectedDatagramToAClosedPortIsPortUnreachable() throws Exception {
        assumeTrue(Matrix.offers(cell.backend(), "udp"), cell.backend() + " has no UDP sockets");
        Loop loop = open();
        InetSocketAddress closed = closedUdpPort();
        DatagramEndpoint d = Datagrams.connect(loop, closed);
        LoopFuture<?> received = d.receive();
        // the ICMP answer to the datagram wakes the receive waiting on the socket, and fails it
        for (int i = 0; i < MAX_WRITES && !received.isDone(); i++) {
            d.send(ByteBuffer.wrap(new byte[] {1}));
            spin(loop, 3);
        }
        assertFailure(failure(received), PortUnreachableException.class,
                "ICMP port unreachable: " + closed + " refused an earlier datagram");
    }

    // ------------------------------------------------------------------ binding

    @Test
    void listeningOnATcpPortInUseIsAddressAlreadyInUseNamingTheAddress() throws Exception {
        Loop loop = open();
        InetSocketAddress taken = listen(loop, c -> { }).localAddress();
        IOException e = assertThrows(IOException.class, () -> Net.listen(loop, taken, c -> { }));
        assertFailure(e, BindException.class, "Address already in use: " + taken);
    }

    @Test
    void bindingAUdpPortInUseIsAddressAlreadyInUseNamingTheAddress() throws Exception {
        assumeTrue(Matrix.offers(cell.backend(), "udp"), cell.backend() + " has no UDP sockets");
        Loop loop = open();
        InetSocketAddress taken = Datagrams.bind(loop, ANY_PORT).localAddress();
        IOException e = assertThrows(IOException.class, () -> Datagrams.bind(loop, taken));
        assertFailure(e, BindException.class, "Address already in use: " + taken);
    }

    @Test
    void listeningOnAnAbstractUnixNameInUseIsAddressAlreadyInUseNamingTheName() throws Exception {
        assumeTrue(Matrix.offers(cell.backend(), "unix"), cell.backend() + " has no Unix domain sockets");
        Loop loop = open();
        LinuxAbstractAddress name = LinuxAbstractAddress.of("loop-errors-" + ThreadLocalRandom.current().nextLong(1L << 48));
        try {
            Unix.listen(loop, name, c -> { });
        } catch (UnsupportedOperationException e) {
            assumeTrue(false, cell.backend() + " has no abstract Unix names: " + e.getMessage());
        }
        IOException e = assertThrows(IOException.class, () -> Unix.listen(loop, name, c -> { }));
        assertFailure(e, BindException.class, "Address already in use: " + name);
    }

    @Test
    void listeningOnAPrivilegedPortIsPermissionDeniedNamingTheAddress() throws Exception {
        assumeFalse(isRoot(), "root may bind ports below 1024: permission denied cannot be provoked as root");
        Loop loop = open();
        InetSocketAddress privileged = new InetSocketAddress(LOOPBACK, 1);
        IOException e = assertThrows(IOException.class, () -> Net.listen(loop, privileged, c -> { }));
        assertFailure(e, BindException.class, "Permission denied: " + privileged);
    }

    // ------------------------------------------------------------------ the open-file limit

    @Test
    void aConnectAtTheOpenFileLimitIsTooManyOpenFiles() throws Exception {
        assumeKernelSockets("the limit is the process's, filled with files");
        long limit = Fds.openFileLimit();
        assumeTrue(limit > 0 && limit <= 100_000, "open-file limit " + limit + ": too many descriptors to fill cheaply");
        Loop loop = open();
        Server server = listen(loop, c -> { });
        // warm up the path at no limit, so reaching it needs no class file opened
        await(loop, Net.connect(loop, server.localAddress())).abort();
        awaitFailure(loop, Net.connect(loop, closedPort()));
        List<FileChannel> hog = new ArrayList<>();
        Throwable e;
        try {
            Path devNull = Path.of("/dev/null");
            try {
                while (hog.size() < limit) {
                    hog.add(FileChannel.open(devNull));
                }
            } catch (IOException full) {
                // at the limit: what a socket needs is not there
            }
            e = awaitFailure(loop, Net.connect(loop, server.localAddress()));
        } finally {
            for (FileChannel f : hog) {
                f.close();
            }
        }
        assertFailure(e, SocketException.class, "Too many open files");
    }

    // ------------------------------------------------------------------ helpers

    /**
     * {@code e} is exactly of {@code type} with {@code message}, and neither it nor anything in its
     * cause chain or suppressed list is a type of the backend's own libraries.
     */
    private void assertFailure(Throwable e, Class<? extends Throwable> type, String message) {
        assertEquals(type, e == null ? null : e.getClass(), () -> cell.backend() + " threw " + e);
        assertEquals(message, e.getMessage(), () -> cell.backend() + " threw " + e);
        assertJdkOnly(e, e);
    }

    private void assertJdkOnly(Throwable top, Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            Throwable at = t;
            assertFalse(t.getClass().getName().startsWith("io.netty."),
                    () -> cell.backend() + " let " + at.getClass().getName() + " reach the user, in " + top);
            for (Throwable s : t.getSuppressed()) {
                assertJdkOnly(top, s);
            }
        }
    }

    /** Writes until a write fails (at once, or its future later), running the loop between writes. */
    private static Throwable firstFailedWrite(Loop loop, Connection c) {
        for (int i = 0; i < MAX_WRITES; i++) {
            LoopFuture<Void> w = c.write(ByteBuffer.wrap(new byte[1024]));
            spin(loop, 3);
            Throwable e = failure(w);
            if (e != null) {
                return e;
            }
        }
        throw new AssertionError(MAX_WRITES + " writes and none failed");
    }

    /** The exception {@code f} failed with, or null while it has not failed. */
    private static Throwable failure(LoopFuture<?> f) {
        return f.isFailed() ? f.exception() : null;
    }

    /** Makes the peer's close a reset (SO_LINGER 0), as an aborting peer does. */
    private static void reset(Socket peer) throws IOException {
        peer.setSoLinger(true, 0);
        peer.close();
    }

    /** A loopback TCP port nobody listens on (it was just free). */
    private static InetSocketAddress closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            return new InetSocketAddress(LOOPBACK, s.getLocalPort());
        }
    }

    /** A loopback UDP port nobody is bound to (it was just free). */
    private static InetSocketAddress closedUdpPort() throws IOException {
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(0, LOOPBACK)) {
            return new InetSocketAddress(LOOPBACK, s.getLocalPort());
        }
    }

    private static boolean isRoot() throws IOException {
        return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }
}
