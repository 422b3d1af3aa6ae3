package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every record the loop writes says which loop wrote it, which task it was written from or about,
 * and which connection it is about, in one form: {@code [loop-3-epoll task=Task-7
 * conn=127.0.0.1:8080->127.0.0.1:41234] message} (docs/adr/0020). Records are captured as a
 * java.util.logging bridge user sees them, through the default exception handler as the suites'
 * handlers pass reports on to it; a fault a peer causes stays one line without a stack trace.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tls")
public class LogContextContract extends NetSuite {
    private LogCapture log;

    @BeforeEach
    void capture() {
        log = LogCapture.start("dev.loop");
    }

    @AfterEach
    void release() {
        log.close();
    }

    @Test
    void anExceptionEscapingACallbackNamesTheLoop() {
        Loop loop = open();
        loop.callSoon(() -> {
            throw new IllegalStateException("callback broke");
        });
        spin(loop, 2);
        String line = record("exception in callback");
        assertTrue(line.startsWith("SEVERE [" + loop.name() + "] exception in callback"), line);
    }

    @Test
    void anExceptionEscapingATaskNamesTheTask() {
        Loop loop = open();
        var task = loop.spawn(() -> {
            throw new IllegalStateException("task broke");
        });
        spin(loop, 3);
        assertTrue(task.isDone());
        loop.close(); // nobody looked at the task's exception: reported as the loop closes
        String line = record("task exception was never retrieved");
        assertTrue(line.startsWith("SEVERE [" + loop.name() + " task=" + task.name() + "] "), line);
    }

    @Test
    void aReportFromInsideATaskNamesTheTask() {
        Loop loop = open();
        String name = loop.run(() -> {
            Async.sleep(Duration.ofMillis(1)); // a later turn: the task still holds the loop thread there
            Loop.current().callExceptionHandler("reported from inside", new IllegalStateException("seen"), null);
            return Async.currentTask().name();
        });
        String line = record("reported from inside");
        assertTrue(line.startsWith("SEVERE [" + loop.name() + " task=" + name + "] reported from inside"), line);
    }

    @Test
    void aSlowCallbackAndASlowTaskTurnInDebugModeNameTheLoopAndTheTask() {
        Loop loop = loops.open(options().withDebug(true).withSlowCallbackThreshold(Duration.ZERO));
        Runnable slow = new Runnable() {
            @Override
            public void run() {
            }

            @Override
            public String toString() {
                return "the-slow-one";
            }
        };
        loop.callSoon(slow);
        var task = loop.spawn(() -> 42);
        spin(loop, 3);
        assertTrue(task.isDone());
        String callback = record("executing the-slow-one took");
        assertTrue(callback.startsWith("WARNING [" + loop.name() + "] executing the-slow-one took"), callback);
        String turn = record("executing " + task.name() + "[");
        assertTrue(turn.startsWith("WARNING [" + loop.name() + " task=" + task.name() + "] executing"), turn);
    }

    @Test
    void anExceptionInAConnectionsHandlerNamesItsAddresses() throws IOException {
        Loop loop = open();
        Server server = Net.listen(loop, ANY_PORT, c -> c.setHandler((conn, data) -> {
            throw new IllegalStateException("handler broke");
        }));
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        client.write("x".getBytes(StandardCharsets.US_ASCII));
        awaitTrue(loop, "the handler's exception logged", () -> log.text().contains("handler broke"));
        String line = record("exception in onData");
        // the server's side: its own address first, the client's after the arrow
        String conn = "conn=" + hostPort(server.localAddress()) + "->" + hostPort(client.localAddress());
        assertTrue(line.startsWith("SEVERE [" + loop.name() + " " + conn + "] exception in onData"), line);
    }

    @Test
    void aFaultSummaryAboutAConnectionNamesItsAddressesOnOneLine() throws Exception {
        assumeKernelSockets("the peers are JDK sockets");
        TestCertificates.warmUp();
        // as in production: each failure's detail at DEBUG on dev.loop.peers is off
        java.util.logging.Logger peers = java.util.logging.Logger.getLogger("dev.loop.peers");
        java.util.logging.Level level = peers.getLevel();
        peers.setLevel(java.util.logging.Level.INFO);
        try {
            refusedPeersAreSummarised();
        } finally {
            peers.setLevel(level);
        }
    }

    private void refusedPeersAreSummarised() throws Exception {
        Loop loop = open();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), TestCertificates.server(), c -> { });
        int[] ports = new int[3];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = plaintextPeer(loop, server.localAddress()); // refused at once: not TLS
        }
        // the last failure is told after the close that the peer saw: then the server closes, and
        // what it counted since its first report goes out in one summary
        awaitTrue(loop, "three failed handshakes", () -> server.connections().isEmpty());
        spin(loop, 3);
        server.close();
        spin(loop, 2);
        String where = "[" + loop.name() + " conn=" + hostPort(server.localAddress()) + "->127.0.0.1:";
        String first = record("more like it are counted");
        assertTrue(first.startsWith("WARNING " + where + ports[0] + "] TLS handshake with"), first);
        // the two after it, told in one summary when the server closed, named after the first of them
        String summary = record("2 more failures like it");
        assertTrue(summary.startsWith("WARNING " + where + ports[1] + "] "), summary);
        assertTrue(log.thrown().isEmpty(), "no stack trace for what peers did: " + log.text());
        assertEquals(1, log.text().lines().filter(l -> l.contains("failures like it")).count(), log.text());
    }

    /** A client that speaks HTTP to the TLS port and reads until the server closes; its port. */
    private static int plaintextPeer(Loop loop, InetSocketAddress server) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(server, 5_000);
            s.setSoTimeout(100);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (System.nanoTime() < deadline) {
                spin(loop, 1);
                try {
                    if (in.read() == -1) {
                        return s.getLocalPort();
                    }
                } catch (java.net.SocketTimeoutException notYet) {
                    // the loop has not answered yet: run it again
                } catch (IOException reset) {
                    return s.getLocalPort();
                }
            }
            throw new AssertionError("the server never closed a plaintext peer");
        }
    }

    /** The one captured record whose message contains {@code text}, as "LEVEL message". */
    private String record(String text) {
        List<String> lines = log.text().lines().filter(l -> l.contains(text)).toList();
        assertEquals(1, lines.size(), "one record with '" + text + "' in: " + log.text());
        return lines.get(0);
    }

    private static String hostPort(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }
}
