package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.net.Connection;
import dev.loop.net.PeerCredentials;
import dev.loop.net.Unix;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SimUnixTest {
    /** A path that exists on no file system here: the simulator never looks there. */
    private static final UnixDomainSocketAddress PATH = UnixDomainSocketAddress.of("/nonexistent-sim/run/app.sock");

    static void greeter(dev.loop.Loop loop) {
        try {
            Unix.listen(loop, PATH, c -> c.write("hello\n".getBytes(StandardCharsets.UTF_8)).onDone(f -> c.close()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aPathIsANameInItsHostsNamespaceOnlyAndLeavesNoFile() {
        try (Simulation sim = Simulation.create(4)) {
            List<String> log = new CopyOnWriteArrayList<>();
            sim.host("server", loop -> {
                greeter(loop);
                loop.spawn(() -> { // a client on the same host reaches it
                    Connection c = Async.await(Unix.connect(loop, PATH));
                    log.add("same host: " + Async.await(c.readLine(100)));
                    PeerCredentials p = c.peerCredentials();
                    log.add("peer " + p.pid() + "/" + p.uid() + "/" + p.gid());
                    return null;
                });
            });
            sim.host("other", loop -> loop.spawn(() -> {
                try {
                    Async.await(Unix.connect(loop, PATH), IOException.class);
                    log.add("other host: connected");
                } catch (IOException e) {
                    log.add("other host: " + e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                return null;
            }));
            sim.runUntil(() -> log.size() == 3, Duration.ofSeconds(5));
            assertTrue(log.contains("same host: hello"), log.toString());
            assertTrue(log.contains("other host: ConnectException: No such file or directory: " + PATH), log.toString());
            assertTrue(log.contains("peer 1001/1000/1000"), "the ids of the host at 10.0.0.1: " + log);
            assertTrue(!Files.exists(Path.of("/nonexistent-sim")), "no file was made");
        }
    }

    @Test
    void aNameInUseIsRefusedUntilItsListenerClosesAndAWriteToAClosedPeerIsABrokenPipe() {
        try (Simulation sim = Simulation.create(9)) {
            List<Object> log = new CopyOnWriteArrayList<>();
            sim.host("server", loop -> loop.spawn(() -> {
                var first = Unix.listen(loop, PATH, c -> { });
                try {
                    Unix.listen(loop, PATH, c -> { });
                } catch (BindException e) {
                    log.add(e.getMessage());
                }
                first.close();
                var accepted = loop.<Connection>newPromise();
                Unix.listen(loop, PATH, accepted::complete); // free again once closed
                Connection client = Async.await(Unix.connect(loop, PATH));
                Connection server = Async.await(accepted);
                server.close();
                try {
                    for (int i = 0; i < 10; i++) {
                        Async.await(client.write(new byte[1024]), IOException.class);
                        Async.sleep(Duration.ofMillis(1));
                    }
                    log.add("no failure");
                } catch (IOException e) {
                    log.add(e);
                }
                return null;
            }));
            sim.runUntil(() -> log.size() == 2, Duration.ofSeconds(5));
            assertEquals("Address already in use: " + PATH, log.get(0));
            Throwable broken = assertInstanceOf(java.net.SocketException.class, log.get(1));
            assertEquals("Broken pipe", broken.getMessage());
        }
    }

    @Test
    void anAbortIsACloseTheEndWhenNothingWasUnreadAResetWhenSomethingWas() {
        try (Simulation sim = Simulation.create(6)) {
            List<String> log = new CopyOnWriteArrayList<>();
            sim.host("a", loop -> loop.spawn(() -> {
                var accepted = new java.util.concurrent.LinkedBlockingQueue<Connection>();
                Unix.listen(loop, PATH, accepted::add);
                for (boolean unread : new boolean[] {false, true}) {
                    Connection client = Async.await(Unix.connect(loop, PATH));
                    Async.sleep(Duration.ofMillis(1));
                    Connection server = accepted.poll();
                    if (unread) {
                        Async.await(server.write("x".getBytes(StandardCharsets.UTF_8)));
                        Async.sleep(Duration.ofMillis(1));
                    }
                    client.abort();
                    try {
                        log.add("read " + Async.await(server.readLine(10), IOException.class));
                    } catch (IOException e) {
                        log.add(e.getMessage());
                    }
                }
                return null;
            }));
            sim.runUntil(() -> log.size() == 2, Duration.ofSeconds(5));
            assertEquals(List.of("read null", "Connection reset"), log);
        }
    }

    @Test
    void aConnectToANameNobodyHoldsFailsAtOnceNamingIt() {
        try (Simulation sim = Simulation.create(1)) {
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            sim.host("a", loop -> Unix.connect(loop, PATH).onDone(f -> failures.add(f.exception())));
            sim.runUntil(() -> !failures.isEmpty(), Duration.ofSeconds(1));
            assertInstanceOf(ConnectException.class, failures.get(0));
            assertEquals(Duration.ZERO, sim.elapsed(), "no round trip: the name is looked up in the host's kernel");
        }
    }
}
