package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopGroup;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.net.AcceptMode;
import dev.loop.net.GroupServer;
import dev.loop.net.Net;
import dev.loop.net.ServerOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A server on a two-loop {@link LoopGroup}, run per backend: connections land on both loops and
 * are served there; closing the group closes every loop and socket. Clients are blocking JDK
 * sockets on the test thread, on 127.0.0.1.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#groups")
public class LoopGroupContract {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int LOOPS = 2;
    /** Enough that the kernel's hash puts some on each loop (all on one: odds 2^-31). */
    private static final int CLIENTS = 32;

    @Parameter
    Cell cell;

    /** The backend under test. */
    protected LoopOptions options() {
        return cell.options();
    }

    /** A line echo server that counts its connections per loop; also for backends' own group tests. */
    public static GroupServer echo(LoopGroup group, AcceptMode mode, Map<Loop, AtomicInteger> perLoop)
            throws IOException {
        return Net.listen(group, ANY_PORT, ServerOptions.defaults(), mode, c -> {
            assertTrue(c.loop().inLoop(), "onAccept runs on the connection's own loop");
            perLoop.computeIfAbsent(c.loop(), l -> new AtomicInteger()).incrementAndGet();
            c.setHandler((conn, data) -> conn.write(data));
        });
    }

    /** Opens every client first, then has each send a line and read it back. */
    public static void talk(InetSocketAddress to, int clients) throws IOException {
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
            GroupServer server = echo(group, AcceptMode.AUTO, perLoop);
            assertTrue(server.mode() == AcceptMode.REUSE_PORT || server.mode() == AcceptMode.HANDOFF, "AUTO chose " + server.mode());
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
            GroupServer server = echo(group, AcceptMode.HANDOFF, perLoop);
            assertEquals(AcceptMode.HANDOFF, server.mode());
            talk(server.localAddress(), 10);
            for (Loop l : group.loops()) {
                assertEquals(5, perLoop.get(l).get(), "round-robin: " + perLoop);
            }
        }
    }

    @Test
    void aGroupServerShutsDownOnEveryLoop() throws Exception {
        ManualClock clock = ManualClock.create();
        try (LoopGroup group = LoopGroup.open(LOOPS, options().withClock(clock))) {
            Map<Loop, AtomicInteger> perLoop = new ConcurrentHashMap<>();
            GroupServer server = echo(group, AcceptMode.HANDOFF, perLoop); // one connection per loop, in turn
            List<Socket> clients = new ArrayList<>();
            try {
                for (int i = 0; i < LOOPS; i++) {
                    Socket s = new Socket();
                    clients.add(s);
                    s.connect(server.localAddress());
                    s.setSoTimeout(8_000);
                    s.getOutputStream().write('x');
                    assertEquals('x', s.getInputStream().read());
                }
                assertEquals(LOOPS, perLoop.size());
                java.util.concurrent.CompletableFuture<Void> done = server.shutdown(Duration.ofSeconds(10));
                for (dev.loop.net.Server s : server.servers()) {
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
                    while (s.isOpen() && System.nanoTime() < end) {
                        Thread.sleep(1); // until each loop took the shutdown (and set its deadline)
                    }
                    assertFalse(s.isOpen(), "stopped accepting: " + s);
                }
                clients.get(0).close(); // closes on its own; the other is open at the deadline
                assertFalse(done.isDone(), "a connection is open and the deadline has not passed");
                clock.advance(Duration.ofSeconds(10));
                done.get(8, TimeUnit.SECONDS);
                assertEquals(-1, clients.get(1).getInputStream().read(), "closed at the deadline");
            } finally {
                for (Socket s : clients) {
                    s.close();
                }
            }
        }
    }

    @Test
    void closingTheGroupClosesEveryLoopAndSocket() throws Exception {
        long before = Fds.count();
        LoopGroup group = LoopGroup.open(LOOPS, options());
        Map<Loop, AtomicInteger> perLoop = new ConcurrentHashMap<>();
        GroupServer server = echo(group, AcceptMode.AUTO, perLoop);
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
        assertThrows(IllegalStateException.class, () -> Net.listen(group, ANY_PORT, ServerOptions.defaults(), c -> { }));
        if (before >= 0) {
            assertEquals(before, Fds.count(), "file descriptors leaked");
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

}
