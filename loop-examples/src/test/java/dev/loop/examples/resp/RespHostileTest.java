package dev.loop.examples.resp;

import static dev.loop.examples.Footprint.assertHeapWithin;
import static dev.loop.examples.Footprint.awaitDescriptors;
import static dev.loop.examples.Footprint.closeAll;
import static dev.loop.examples.Footprint.liveHeap;
import static dev.loop.examples.Footprint.loudLines;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.ExternalTools;
import dev.loop.testkit.Cell;
import dev.loop.testkit.Fds;
import dev.loop.testkit.LogCapture;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The RESP server against clients that lie about lengths, send garbage or never read, a few hundred
 * at a time, on every backend with sockets: what they make the server hold stays bounded, each gets
 * Redis' answer and a close, nothing is logged per client, descriptors come back, and a polite
 * client is served throughout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RespHostileTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long MiB = 1024 * 1024;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A polite client: a round trip on a socket of its own, and redis-cli when it is installed. */
    private static void politeClientIsServed(RespServer server) throws Exception {
        try (Socket s = ExternalTools.connect(server.address(), WAIT)) {
            s.getOutputStream().write(ascii("*3\r\n$3\r\nSET\r\n$6\r\npolite\r\n$2\r\nok\r\n*2\r\n$3\r\nGET\r\n$6\r\npolite\r\n"));
            InputStream in = new BufferedInputStream(s.getInputStream());
            assertEquals("+OK\r\n", RespProtocolTest.readReply(in));
            assertEquals("$2\r\nok\r\n", RespProtocolTest.readReply(in));
        }
        if (ExternalTools.find("redis-cli") != null) {
            ExternalTools.Result r = ExternalTools.run(WAIT, "redis-cli", "-p",
                    Integer.toString(server.address().getPort()), "PING");
            assertEquals("PONG", r.out().strip(), r.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void declaredLengthsCostNothingUntilTheirBytesArrive(Cell cell) throws Exception {
        try (LogCapture log = LogCapture.start("dev.loop"); RespServer server = RespProtocolTest.start(cell, 1)) {
            politeClientIsServed(server); // whatever the first round trip opens for good is open before counting
            long fds = Fds.count();
            long heap = liveHeap();
            List<Socket> peers = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    Socket s = ExternalTools.connect(server.address(), WAIT);
                    peers.add(s);
                    // one write: the PING's answer proves the header behind it was read too. Half of
                    // them declare a value of almost 512 MB, half an array of a million arguments.
                    String lie = i % 2 == 0 ? "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870000\r\nabc"
                            : "*1048576\r\n$1\r\na\r\n";
                    s.getOutputStream().write(ascii("*1\r\n$4\r\nPING\r\n" + lie));
                }
                for (Socket s : peers) {
                    assertEquals("+PONG\r\n", RespProtocolTest.readReply(s.getInputStream()));
                }
                // 200 x 512 MB were declared; a 64 KiB head start each is 12.5 MiB
                assertHeapWithin(heap, 48 * MiB, "200 clients declaring 512 MB values or a million arguments");
                politeClientIsServed(server);
            } finally {
                closeAll(peers);
            }
            awaitDescriptors(fds, WAIT);
            politeClientIsServed(server);
            assertHeapWithin(heap, 8 * MiB, "after the liars left");
            assertEquals(List.of(), loudLines(log));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void invalidLengthsAndGarbageGetRedisErrorsAndACloseWithoutALogLine(Cell cell) throws Exception {
        String[][] cases = {
            {"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$-5\r\n", "invalid bulk length"},
            {"*1\r\n$536870913\r\n", "invalid bulk length"}, // one byte past proto-max-bulk-len
            {"*1\r\n$99999999999999999999\r\n", "invalid bulk length"},
            {"*1\r\n$zz\r\n", "invalid bulk length"},
            {"*1048577\r\n", "invalid multibulk length"},
            {"*x\r\n", "invalid multibulk length"},
            {"*1\r\n+PING\r\n", "expected '$', got '+'"},
            {"PING \"unbalanced\r\n", "unbalanced quotes in request"},
        };
        try (LogCapture log = LogCapture.start("dev.loop"); RespServer server = RespProtocolTest.start(cell, 1)) {
            politeClientIsServed(server); // whatever the first round trip opens for good is open before counting
            long fds = Fds.count();
            int n = 320;
            List<Socket> peers = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) {
                    Socket s = ExternalTools.connect(server.address(), WAIT);
                    peers.add(s);
                    s.getOutputStream().write(ascii(cases[i % cases.length][0]));
                }
                for (int i = 0; i < n; i++) {
                    InputStream in = peers.get(i).getInputStream();
                    String expected = "-ERR Protocol error: " + cases[i % cases.length][1] + "\r\n";
                    assertEquals(expected, new String(in.readAllBytes(), StandardCharsets.ISO_8859_1),
                            "answer to " + cases[i % cases.length][0].strip() + ", then the end of the stream");
                }
                politeClientIsServed(server);
            } finally {
                closeAll(peers);
            }
            assertEquals(n, server.protocolErrors());
            awaitDescriptors(fds, WAIT);
            assertEquals(List.of(), loudLines(log), "faults a client causes are counted, not logged");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void aCommandLargerThanTheQueryBufferLimitIsRefused(Cell cell) throws Exception {
        RespServer.Config c = RespServer.Config.defaults().withLimits(1024, (int) MiB, 2 * MiB);
        try (RespServer server = RespProtocolTest.start(cell, 1, c);
             Socket s = ExternalTools.connect(server.address(), WAIT)) {
            OutputStream out = s.getOutputStream();
            byte[] value = new byte[(int) MiB];
            out.write(ascii("*4\r\n$3\r\nSET\r\n$" + MiB + "\r\n"));
            out.write(value);
            out.write(ascii("\r\n$" + MiB + "\r\n")); // the two values would be more than 2 MiB together
            assertEquals("-ERR Protocol error: command of more than " + 2 * MiB + " bytes\r\n",
                    RespProtocolTest.readReply(s.getInputStream()));
            politeClientIsServed(server);
        }
    }

    @ParameterizedTest(name = "{0}, {1} loops")
    @MethodSource("dev.loop.examples.resp.RespProtocolTest#servers")
    void clientsThatPipelineButNeverReadHoldLittle(Cell cell, int loops) throws Exception {
        try (LogCapture log = LogCapture.start("dev.loop"); RespServer server = RespProtocolTest.start(cell, loops)) {
            politeClientIsServed(server); // whatever the first round trip opens for good is open before counting
            long fds = Fds.count();
            int valueSize = 256 * 1024;
            try (Socket s = ExternalTools.connect(server.address(), WAIT)) {
                s.getOutputStream().write(ascii("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + valueSize + "\r\n"));
                s.getOutputStream().write(new byte[valueSize]);
                s.getOutputStream().write(ascii("\r\n"));
                assertEquals("+OK\r\n", RespProtocolTest.readReply(s.getInputStream()));
            }
            long heap = liveHeap();
            List<Socket> peers = new ArrayList<>();
            try {
                // 20 clients x 3000 GETs of 256 KiB: 15 GB of replies asked for, none read
                byte[] gets = ascii("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n".repeat(3000));
                for (int i = 0; i < 20; i++) {
                    Socket p = new Socket();
                    p.setReceiveBufferSize(4096);
                    p.connect(server.address());
                    peers.add(p);
                    p.getOutputStream().write(gets); // 66 KB: fits the kernel's buffers, so this returns
                }
                politeClientIsServed(server); // the loops have gone round since the GETs arrived
                for (int i = 0; i < 3; i++) {
                    assertHeapWithin(heap, 64 * MiB, "20 clients not reading 256 KiB replies");
                    politeClientIsServed(server);
                }
            } finally {
                closeAll(peers);
            }
            awaitDescriptors(fds, WAIT);
            assertHeapWithin(heap, 8 * MiB, "after the clients that did not read left");
            assertEquals(List.of(), loudLines(log));
        }
    }
}
