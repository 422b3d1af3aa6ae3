package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import dev.loop.net.ConnectionOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sockets under load: thousands of concurrent connections echoing byte-exact, and connect/close
 * storms. Every test checks that nothing leaks, that nothing reached the loop's exception handler, and that
 * the server still serves afterwards; docs/RELIABILITY.md says what each test shows.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tcpSockets")
public class FaultLoadContract extends FaultSuite {

    // ------------------------------------------------------------------ many connections

    @Test
    void thousandsOfConcurrentConnectionsEchoByteExactAndLeakNoDescriptor() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        long room = (Fds.openFileLimit() - Math.max(0, before) - FD_HEADROOM) / 2; // both ends are in this process
        int n = (int) Math.min(fullSize() ? 2_000 : 300, room);
        assertTrue(n >= 100, "the open-file limit leaves room for only " + n + " connections");
        Server server = echoServer(loop);
        List<Connection> clients = connectMany(loop, server, n, ConnectionOptions.defaults());
        awaitTrue(loop, n + " accepted", () -> server.connections().size() == n);
        Random rnd = new Random(11);
        List<byte[]> sent = new ArrayList<>();
        List<LoopFuture<byte[]>> back = new ArrayList<>();
        for (Connection c : clients) { // all open at once, all exchanging at once
            byte[] data = randomBytes(rnd, 1 + rnd.nextInt(4096));
            sent.add(data);
            back.add(exchange(c, data));
        }
        List<byte[]> got = await(loop, LoopFuture.all(loop, back));
        for (int i = 0; i < n; i++) {
            assertArrayEquals(sent.get(i), got.get(i), "connection " + i + " of " + n);
        }
        for (Connection c : clients) {
            c.close();
        }
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        server.close();
        assertNoFdLeaked(loop, before);
        figures("many connections", start, before, n + " concurrent connections echoed " + sent.stream().mapToLong(b -> b.length).sum() + " bytes byte-exact");
        assertNothingReported();
    }

    // ------------------------------------------------------------------ storms

    /**
     * Connect/close storms: waves of clients that close, reset or write-and-close right after
     * connecting, or give up on the connect before it completes, while the server closes every third
     * connection it accepts at once. Nothing is left open on either side.
     */
    @Test
    void connectAndCloseStormsLeaveNothingOpen() throws Exception {
        long start = System.nanoTime();
        Loop loop = open();
        long before = settledFds(loop);
        int total = fullSize() ? 2_000 : 400;
        int[] accepted = {0};
        Server server = listen(loop, c -> {
            if (accepted[0]++ % 3 == 0) {
                c.close();
            } else {
                c.setHandler((conn, data) -> conn.write(data));
            }
        });
        int closed = 0;
        for (int at = 0; at < total; at += 200) {
            List<LoopFuture<Void>> wave = new ArrayList<>();
            for (int i = at; i < Math.min(total, at + 200); i++) {
                int mode = i % 4;
                LoopFuture<Connection> f = connect(loop, server);
                if (mode == 3) {
                    f.toCompletableFuture().cancel(false); // the caller gives up before the connect is done
                    continue;
                }
                Promise<Void> done = loop.newPromise();
                f.onDone(cf -> {
                    Connection c = cf.result();
                    switch (mode) {
                        case 0 -> c.close();
                        case 1 -> c.abort();
                        default -> {
                            c.write(new byte[] {1});
                            c.close();
                        }
                    }
                    c.closeFuture().onDone(x -> done.complete(null));
                });
                wave.add(done);
            }
            await(loop, LoopFuture.all(loop, wave));
            closed += wave.size();
        }
        assertTrue(closed > total / 2);
        awaitTrue(loop, "the server's side closed", () -> server.connections().isEmpty());
        assertServes(loop, server);
        server.close();
        assertNoFdLeaked(loop, before);
        figures("storms", start, before, total + " connects, closed, reset, written-and-closed or given up, in waves of 200");
        assertNothingReported();
    }
}
