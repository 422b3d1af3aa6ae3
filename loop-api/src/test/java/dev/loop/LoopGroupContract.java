package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server on a two-loop {@link LoopGroup}, run per backend: connections land on both loops and
 * are served there; closing the group closes every loop and socket. Clients are blocking JDK
 * sockets on the test thread, on 127.0.0.1.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
public abstract class LoopGroupContract {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int LOOPS = 2;
    /** Enough that the kernel's hash puts some on each loop (all on one: odds 2^-31). */
    private static final int CLIENTS = 32;

    /** The backend under test. */
    protected abstract LoopOptions options();

    /** What {@link LoopGroup.AcceptMode#AUTO} should choose on this backend. */
    protected abstract LoopGroup.AcceptMode expectedAutoMode();

    /** A line echo server that counts its connections per loop. */
    private static GroupServer echo(LoopGroup group, LoopGroup.AcceptMode mode, Map<Loop, AtomicInteger> perLoop)
            throws IOException {
        return group.listen(ANY_PORT, ServerOptions.defaults(), mode, c -> {
            assertTrue(c.loop().inLoop(), "onAccept runs on the connection's own loop");
            perLoop.computeIfAbsent(c.loop(), l -> new AtomicInteger()).incrementAndGet();
            c.setHandler((conn, data) -> conn.write(data));
        });
    }

    /** Opens every client first, then has each send a line and read it back. */
    private static void talk(InetSocketAddress to, int clients) throws IOException {
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Socket s = new Socket();
                open.add(s);
                s.connect(to);
                s.setSoTimeout(8_000);
            }
            for (int i = 0; i < clients; i++) {
                Socket s = open.get(i);
                s.getOutputStream().write(("hello " + i + "\n").getBytes(StandardCharsets.US_ASCII));
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
                assertEquals("hello " + i, in.readLine());
            }
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    @Test
    void aServerOnTwoLoopsServesClientsOnBoth() throws Exception {
        try (LoopGroup group = LoopGroup.open(LOOPS, options())) {
            Map<Loop, AtomicInteger> perLoop = new ConcurrentHashMap<>();
            GroupServer server = echo(group, LoopGroup.AcceptMode.AUTO, perLoop);
            assertEquals(expectedAutoMode(), server.mode());
            talk(server.localAddress(), CLIENTS);
            assertEquals(LOOPS, perLoop.size(), "connections per loop: " + perLoop);
            assertEquals(CLIENTS, perLoop.values().stream().mapToInt(AtomicInteger::get).sum());
            server.close(true);
        }
    }

    @Test
    void handOffDealsConnectionsToTheLoopsInTurn() throws Exception {
        try (LoopGroup group = LoopGroup.open(LOOPS, options())) {
            Map<Loop, AtomicInteger> perLoop = new ConcurrentHashMap<>();
            GroupServer server = echo(group, LoopGroup.AcceptMode.HANDOFF, perLoop);
            assertEquals(LoopGroup.AcceptMode.HANDOFF, server.mode());
            talk(server.localAddress(), 10);
            for (Loop l : group.loops()) {
                assertEquals(5, perLoop.get(l).get(), "round-robin: " + perLoop);
            }
        }
    }

    @Test
    void closingTheGroupClosesEveryLoopAndSocket() throws Exception {
        long before = openFds();
        LoopGroup group = LoopGroup.open(LOOPS, options());
        Map<Loop, AtomicInteger> perLoop = new ConcurrentHashMap<>();
        GroupServer server = echo(group, LoopGroup.AcceptMode.AUTO, perLoop);
        Socket idle = new Socket();
        idle.connect(server.localAddress()); // accepted, left open: the group's close must close it
        idle.setSoTimeout(8_000);
        talk(server.localAddress(), 4);
        group.close();
        group.close(); // idempotent
        for (Loop l : group.loops()) {
            assertTrue(l.isClosed(), l + " still open");
        }
        assertEquals(-1, idle.getInputStream().read(), "the server side was closed");
        idle.close();
        assertTrue(group.isClosed());
        assertThrows(IllegalStateException.class, () -> group.listen(ANY_PORT, ServerOptions.defaults(), c -> { }));
        if (before >= 0) {
            assertEquals(before, openFds(), "file descriptors leaked");
        }
    }

    @Test
    void aGroupNeedsALoop() {
        assertThrows(IllegalArgumentException.class, () -> LoopGroup.open(0, options()));
        try (LoopGroup group = LoopGroup.open(1, options())) {
            assertFalse(group.isClosed());
            assertEquals(group.loops().get(0), group.next());
            assertEquals(group.loops().get(0), group.next());
        }
    }

    private static long openFds() {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return -1;
        }
        try (Stream<Path> s = Files.list(fds)) {
            return s.count() - 1;
        } catch (IOException e) {
            return -1;
        }
    }
}
