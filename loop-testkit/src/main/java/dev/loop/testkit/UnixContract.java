package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static dev.loop.testkit.Runs.awaitFailure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.LinuxAbstractAddress;
import dev.loop.net.PeerCredentials;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.Unix;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What is particular to Unix domain sockets, on every backend that has them x timer strategy: the
 * socket file's life (removed on close, a stale one replaced only on request, anything else never
 * touched), the path limit, and the Linux extras (abstract names, peer credentials) where a
 * backend has them, or its refusal naming itself where it has not. The stream behaviour itself is
 * {@link NetContract}'s, run over the {@code unix} transport.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#unixSockets")
public class UnixContract {
    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    @TempDir
    Path dir;

    Loop open() {
        return loops.open(cell.options());
    }

    /**
     * Whether the backend's Unix sockets are the kernel's, with a file at their path: a simulated
     * network's ({@code sim}) are names in its own namespace, which no file system call sees.
     */
    boolean socketFiles() {
        return Matrix.kernelSockets(cell.backend());
    }

    /** Accepts a connection, writes {@code hello} on it, closes it. */
    static Server greeter(Loop loop, java.net.SocketAddress at, Unix.Stale stale) throws Exception {
        return Unix.listen(loop, at, ServerOptions.defaults(), stale,
                c -> c.write("hello".getBytes(StandardCharsets.UTF_8)).onDone(f -> c.close()));
    }

    static String greeting(Loop loop, java.net.SocketAddress at) {
        Connection c = await(loop, Unix.connect(loop, at));
        String got = StandardCharsets.UTF_8.decode(await(loop, c.readExactly(5))).toString();
        c.close();
        return got;
    }

    @Test
    void theSocketFileIsRemovedWhenTheServerCloses() throws Exception {
        Loop loop = open();
        UnixDomainSocketAddress at = UnixDomainSocketAddress.of(dir.resolve("s"));
        Server server = greeter(loop, at, Unix.Stale.FAIL);
        assertEquals(at, server.localSocketAddress());
        if (socketFiles()) {
            assertTrue(Files.exists(at.getPath()), "bound: the file is there");
        }
        assertEquals("hello", greeting(loop, at));
        server.close();
        assertFalse(Files.exists(at.getPath()), "the socket file outlived its server");
        Throwable gone = awaitFailure(loop, Unix.connect(loop, at));
        assertInstanceOf(ConnectException.class, gone);
        assertTrue(gone.getMessage().startsWith("No such file or directory"), gone.getMessage());
    }

    @Test
    void theSocketFileIsRemovedWhenTheLoopCloses() throws Exception {
        Loop loop = open();
        Path p = dir.resolve("s");
        greeter(loop, UnixDomainSocketAddress.of(p), Unix.Stale.FAIL);
        loop.close();
        assertFalse(Files.exists(p), "the socket file outlived its loop");
    }

    @Test
    void aSocketFileReplacedByAnotherServerIsNotRemoved() throws Exception {
        Loop loop = open();
        UnixDomainSocketAddress at = UnixDomainSocketAddress.of(dir.resolve("s"));
        org.junit.jupiter.api.Assumptions.assumeTrue(socketFiles(),
                cell.backend() + " names its Unix sockets in a namespace of its own: no file to remove");
        Server first = greeter(loop, at, Unix.Stale.FAIL);
        Files.delete(at.getPath()); // someone removed it, and another server took the path
        Server second = greeter(loop, at, Unix.Stale.FAIL);
        first.close();
        assertTrue(Files.exists(at.getPath()), "closing the first server removed the second one's file");
        assertEquals("hello", greeting(loop, at));
        second.close();
        assertFalse(Files.exists(at.getPath()));
    }

    @Test
    void aStaleSocketFileIsRefusedNamingItUnlessReplacing() throws Exception {
        Loop loop = open();
        UnixDomainSocketAddress at = UnixDomainSocketAddress.of(dir.resolve("crashed"));
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(at); // the JDK leaves the file behind on close, as a crashed server does
        }
        assertTrue(Files.exists(at.getPath()));
        BindException e = assertThrows(BindException.class, () -> greeter(loop, at, Unix.Stale.FAIL));
        assertTrue(e.getMessage().contains(at.getPath().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("stale"), e.getMessage());
        greeter(loop, at, Unix.Stale.REPLACE);
        assertEquals("hello", greeting(loop, at));
    }

    @Test
    void aLiveServersSocketIsNeverReplaced() throws Exception {
        Loop loop = open();
        UnixDomainSocketAddress at = UnixDomainSocketAddress.of(dir.resolve("live"));
        greeter(loop, at, Unix.Stale.FAIL);
        BindException e = assertThrows(BindException.class, () -> greeter(loop, at, Unix.Stale.REPLACE));
        assertTrue(e.getMessage().contains(at.getPath().toString()), e.getMessage());
        assertEquals("hello", greeting(loop, at), "the live server still answers");
    }

    @Test
    void aPathThatIsNotASocketIsRefusedAndLeftAlone() throws Exception {
        Loop loop = open();
        Path file = dir.resolve("data.txt");
        Files.writeString(file, "keep me");
        for (Unix.Stale stale : Unix.Stale.values()) {
            BindException e = assertThrows(BindException.class,
                    () -> greeter(loop, UnixDomainSocketAddress.of(file), stale));
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("not a socket"),
                    e.getMessage());
        }
        assertEquals("keep me", Files.readString(file));
        Path sub = Files.createDirectory(dir.resolve("sub"));
        assertThrows(BindException.class, () -> greeter(loop, UnixDomainSocketAddress.of(sub), Unix.Stale.REPLACE));
        assertTrue(Files.isDirectory(sub));
    }

    @Test
    void aPathLongerThanThePlatformAllowsIsRefusedNamingIt() throws Exception {
        Loop loop = open();
        Path deep = dir.resolve("x".repeat(Unix.MAX_PATH_BYTES + 1 - dir.toString().length() - 1));
        UnixDomainSocketAddress tooLong = UnixDomainSocketAddress.of(deep);
        assertEquals(Unix.MAX_PATH_BYTES + 1, deep.toString().getBytes(StandardCharsets.UTF_8).length);
        IllegalArgumentException listen = assertThrows(IllegalArgumentException.class,
                () -> greeter(loop, tooLong, Unix.Stale.FAIL));
        assertTrue(listen.getMessage().contains(deep.toString()), listen.getMessage());
        assertTrue(listen.getMessage().contains(Integer.toString(Unix.MAX_PATH_BYTES)), listen.getMessage());
        IllegalArgumentException connect = assertThrows(IllegalArgumentException.class,
                () -> Unix.connect(loop, tooLong));
        assertTrue(connect.getMessage().contains(deep.toString()), connect.getMessage());
        // one byte shorter is fine
        Path longest = dir.resolve("x".repeat(Unix.MAX_PATH_BYTES - dir.toString().length() - 1));
        UnixDomainSocketAddress ok = UnixDomainSocketAddress.of(longest);
        greeter(loop, ok, Unix.Stale.FAIL);
        assertEquals("hello", greeting(loop, ok));
    }

    @Test
    void anAddressOfAnotherFamilyIsRefusedNamingIt() throws Exception {
        Loop loop = open();
        InetSocketAddress ip = new InetSocketAddress(InetAddress.getLoopbackAddress(), 80);
        IllegalArgumentException listen = assertThrows(IllegalArgumentException.class,
                () -> greeter(loop, ip, Unix.Stale.FAIL));
        assertTrue(listen.getMessage().contains(ip.toString()), listen.getMessage());
        IllegalArgumentException connect = assertThrows(IllegalArgumentException.class, () -> Unix.connect(loop, ip));
        assertTrue(connect.getMessage().contains(ip.toString()), connect.getMessage());
    }

    @Test
    void connectingWhereNobodyListensFailsNamingThePath() throws Exception {
        Loop loop = open();
        UnixDomainSocketAddress nobody = UnixDomainSocketAddress.of(dir.resolve("nobody"));
        Throwable missing = awaitFailure(loop, Unix.connect(loop, nobody));
        assertInstanceOf(ConnectException.class, missing);
        assertTrue(missing.getMessage().contains(nobody.getPath().toString()), missing.getMessage());
    }

    @Test
    void abstractNamesLeaveNoFileOrAreRefusedNamingTheBackend() throws Exception {
        Loop loop = open();
        LinuxAbstractAddress name = LinuxAbstractAddress.of("loop-test-" + ThreadLocalRandom.current().nextLong());
        Server server;
        try {
            server = greeter(loop, name, Unix.Stale.FAIL);
        } catch (UnsupportedOperationException e) {
            assertTrue(e.getMessage().contains(cell.backend()), e.getMessage());
            return;
        }
        assertEquals(name, server.localSocketAddress());
        assertEquals("hello", greeting(loop, name));
        BindException taken = assertThrows(BindException.class, () -> greeter(loop, name, Unix.Stale.REPLACE));
        assertTrue(taken.getMessage().contains(name.name()), taken.getMessage());
        server.close();
        Throwable gone = awaitFailure(loop, Unix.connect(loop, name));
        assertInstanceOf(ConnectException.class, gone);
    }

    @Test
    void peerCredentialsNameThisProcessOrAreRefusedNamingTheBackend() throws Exception {
        Loop loop = open();
        UnixDomainSocketAddress at = UnixDomainSocketAddress.of(dir.resolve("creds"));
        Connection[] accepted = {null};
        Unix.listen(loop, at, c -> accepted[0] = c);
        Connection client = await(loop, Unix.connect(loop, at));
        Runs.until(loop, () -> accepted[0] != null, "the server accepted");
        // this process made the directory: its owner is this process's user, socket file or not
        long uid = ((Number) Files.getAttribute(dir, "unix:uid")).longValue();
        for (Connection c : new Connection[] {client, accepted[0]}) {
            PeerCredentials p;
            try {
                p = c.peerCredentials();
            } catch (UnsupportedOperationException e) {
                assertTrue(e.getMessage().contains(cell.backend()), e.getMessage());
                return;
            }
            assertEquals(ProcessHandle.current().pid(), p.pid(), "both ends are this process");
            assertEquals(uid, p.uid());
        }
        client.close();
    }
}
