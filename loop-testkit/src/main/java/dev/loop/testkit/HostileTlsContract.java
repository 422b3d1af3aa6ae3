package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.TlsOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile clients of a TLS server, hundreds at a time, on every backend with sockets: silent ones,
 * plaintext HTTP, resets in the middle of the handshake, an SSLv2-format hello, garbage, a TLS 1.0
 * hello, a record that declares more than any record may hold. For each kind the server must write
 * a bounded number of log records however many come (a peer must not be able to write our log),
 * none with a stack trace; give every descriptor back; keep serving a well-behaved TLS client
 * meanwhile; and refuse what it can recognise at once rather than at the handshake timeout.
 * Clients are blocking sockets on a thread of their own, written byte by byte where no real client
 * would send what they do.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tls")
public class HostileTlsContract extends NetSuite {

    /** Silent clients: the case measured in docs/RELIABILITY.md. */
    static final int SILENT = 500;
    /** Clients of each other kind. */
    static final int EACH = 200;
    /** Records the server may write for a whole flood: the first failure, a summary, a spare. */
    static final int MAX_RECORDS = 3;
    /** A refusal that needs no timeout must come well before the default handshake timeout. */
    static final Duration PROMPT = Duration.ofSeconds(2);
    private static final Duration SHORT_HANDSHAKE = Duration.ofMillis(300);

    private LogCapture log;
    private Level peersLevel;
    private final Formatted formatted = new Formatted();

    @BeforeEach
    void capture() {
        assumeKernelSockets("the hostile peers are JDK sockets");
        TestCertificates.warmUp();
        log = LogCapture.start("dev.loop");
        // as in production: the per-failure detail at DEBUG is off, only what an operator sees counts
        peersLevel = Logger.getLogger("dev.loop.peers").getLevel();
        Logger.getLogger("dev.loop.peers").setLevel(Level.INFO);
        Logger.getLogger("dev.loop").addHandler(formatted);
    }

    @AfterEach
    void release() {
        if (log == null) {
            return; // skipped before capturing
        }
        Logger.getLogger("dev.loop").removeHandler(formatted);
        Logger.getLogger("dev.loop.peers").setLevel(peersLevel);
        log.close();
    }

    @Test
    void silentClientsTimeOutAndWriteAFewRecords() throws Exception {
        Flood f = flood("silent", SILENT, SHORT_HANDSHAKE, true, s -> { });
        assertTrue(f.slowestMillis >= SHORT_HANDSHAKE.toMillis() - 50, "closed before its timeout: " + f.slowestMillis + " ms");
        assertTrue(log.text().contains("timed out after 300 ms"), log.text());
    }

    @Test
    void plaintextHttpOnTheTlsPortIsRefusedAtOnce() throws Exception {
        Flood f = flood("plaintext HTTP", EACH, TlsOptions.DEFAULT_HANDSHAKE_TIMEOUT, false,
                s -> s.getOutputStream().write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        assertPrompt(f);
        assertTrue(log.text().contains("not TLS"), log.text());
    }

    @Test
    void resetsInTheMiddleOfTheHandshakeWriteAFewRecords() throws Exception {
        flood("reset mid-handshake", EACH, TlsOptions.DEFAULT_HANDSHAKE_TIMEOUT, false, s -> {
            s.getOutputStream().write(tls10Hello(), 0, 20); // a record header and part of a hello
            s.setSoLinger(true, 0);
            s.close(); // a reset, not a FIN
        });
    }

    @Test
    void anSslv2FormatHelloIsRefusedWithAnAlertAtOnce() throws Exception {
        Flood f = flood("SSLv2 hello", EACH, TlsOptions.DEFAULT_HANDSHAKE_TIMEOUT, false, s -> s.getOutputStream().write(sslv2Hello()));
        assertPrompt(f);
        // a fatal protocol_version alert in a TLS record, the only thing a v2-compatible client can read
        assertArrayEquals(new byte[] {21, 3, 1, 0, 2, 2, 70}, f.firstAnswer, "the answer to an SSLv2-format hello");
        assertTrue(log.text().contains("SSLv2"), log.text());
    }

    @Test
    void aFewBytesOfAnSslv2HelloAreEnoughToBeRefused() throws Exception {
        // the rest never comes: the server must not wait for it until the handshake times out
        Flood f = flood("SSLv2 hello cut short", EACH / 4, TlsOptions.DEFAULT_HANDSHAKE_TIMEOUT, false,
                s -> s.getOutputStream().write(sslv2Hello(), 0, 6));
        assertPrompt(f);
    }

    @Test
    void garbageIsRefusedAtOnce() throws Exception {
        Random r = new Random(42);
        Flood f = flood("garbage", EACH, TlsOptions.DEFAULT_HANDSHAKE_TIMEOUT, false, s -> {
            byte[] junk = new byte[300];
            r.nextBytes(junk);
            junk[0] = 0x47; // not a record type, not an SSLv2 header
            s.getOutputStream().write(junk);
        });
        assertPrompt(f);
    }

    @Test
    void aTls10HelloIsRefusedAtOnce() throws Exception {
        Flood f = flood("TLS 1.0 hello", EACH, TlsOptions.DEFAULT_HANDSHAKE_TIMEOUT, false, s -> s.getOutputStream().write(tls10Hello()));
        assertPrompt(f);
        assertEquals(21, f.firstAnswer.length > 0 ? f.firstAnswer[0] : -1, "an alert record, not silence");
    }

    @Test
    void aRecordLongerThanAnyMayBeIsRefusedAtOnce() throws Exception {
        // 64 KiB declared, a few bytes sent: nothing may wait for (or allocate) the rest
        Flood f = flood("oversize record", EACH, TlsOptions.DEFAULT_HANDSHAKE_TIMEOUT, false,
                s -> s.getOutputStream().write(new byte[] {22, 3, 3, (byte) 0xff, (byte) 0xff, 1, 0, 0}));
        assertPrompt(f);
    }

    // ------------------------------------------------------------------ the flood

    /** What the clients of one flood saw. */
    record Flood(long slowestMillis, byte[] firstAnswer) {
    }

    interface Hostile {
        void act(Socket s) throws IOException;
    }

    /**
     * Floods a TLS server (handshakes time out after {@code timeout}) with {@code n} clients doing
     * {@code hostile}, while a well-behaved TLS client echoes, then checks what every flood must
     * leave behind: no connection accepted, a bounded log without stack traces, the descriptors
     * back, the good client served. {@code together}: all connect first, then all wait for the
     * server's answer; else one after another, each waiting for its answer (an end of stream or a
     * reset).
     */
    private Flood flood(String kind, int n, Duration timeout, boolean together, Hostile hostile) throws Exception {
        Loop loop = open();
        AtomicInteger accepted = new AtomicInteger();
        Server server = Net.listen(loop, ANY_PORT, ServerOptions.defaults(), TestCertificates.server().withHandshakeTimeout(timeout),
                c -> {
                    accepted.incrementAndGet();
                    c.setHandler((conn, data) -> conn.write(data));
                });
        Connection good = await(loop, Net.connect(loop, server.localAddress(), ConnectionOptions.defaults(), TestCertificates.clientOptions()));
        echo(loop, good, "before");
        long baseline = Fds.count();
        int logBefore = log.text().length();
        formatted.reset();

        CompletableFuture<Flood> clients = CompletableFuture.supplyAsync(() -> {
            try {
                return together ? together(server.localAddress(), n, hostile) : oneByOne(server.localAddress(), n, hostile);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        long start = System.nanoTime();
        echo(loop, good, "during the flood"); // the loop serves it between hostile clients
        long goodMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        awaitTrue(loop, "the " + kind + " clients", clients::isDone);
        Flood f = clients.join();
        echo(loop, good, "after");
        awaitTrue(loop, "descriptors back to " + baseline + " after " + kind + " clients", () -> Fds.count() <= baseline);
        assertEquals(1, accepted.get(), "only the good client was accepted");
        server.close(); // tells what is still untold
        good.close();

        String text = log.text().substring(logBefore);
        long records = text.lines().filter(l -> l.startsWith("WARNING ") || l.startsWith("SEVERE ") || l.startsWith("INFO ")).count();
        System.out.printf("hostile TLS [%s] %d %s clients: %d log records; as the console writes them %d lines, %d bytes"
                        + " (%.0f lines, %.0f bytes per 1,000); slowest refusal %d ms; good client echoed in %d ms during the flood%n",
                cell, n, kind, records, formatted.lines, formatted.bytes, formatted.lines * 1000.0 / n, formatted.bytes * 1000.0 / n,
                f.slowestMillis, goodMillis);
        assertTrue(records >= 1 && records <= MAX_RECORDS, records + " records for " + n + " " + kind + " clients:\n" + text);
        assertEquals(List.of(), log.thrown(), "no stack trace for what peers did");
        if (n > 1) {
            assertTrue(text.contains((n - 1) + " more failures like it"), "the summary counts every one:\n" + text);
        }
        return f;
    }

    /** What the default console handler would write (SimpleFormatter, stack traces included), counted. */
    private static final class Formatted extends java.util.logging.Handler {
        private final java.util.logging.SimpleFormatter format = new java.util.logging.SimpleFormatter();
        volatile long lines;
        volatile long bytes;

        Formatted() {
            setLevel(Level.INFO);
        }

        void reset() {
            lines = 0;
            bytes = 0;
        }

        @Override
        public synchronized void publish(java.util.logging.LogRecord r) {
            if (isLoggable(r)) {
                String text = format.format(r);
                lines += text.lines().count();
                bytes += text.getBytes(StandardCharsets.UTF_8).length;
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    private static void assertPrompt(Flood f) {
        assertTrue(f.slowestMillis < PROMPT.toMillis(), "the slowest refusal took " + f.slowestMillis + " ms");
    }

    private static Flood oneByOne(InetSocketAddress server, int n, Hostile hostile) throws IOException {
        long slowest = 0;
        byte[] first = null;
        for (int i = 0; i < n; i++) {
            try (Socket s = new Socket()) {
                s.connect(server, (int) PATIENCE.toMillis());
                s.setSoTimeout((int) PATIENCE.toMillis());
                long t0 = System.nanoTime();
                hostile.act(s);
                if (s.isClosed()) {
                    continue; // it reset the connection itself
                }
                byte[] answer = readToEnd(s);
                slowest = Math.max(slowest, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                first = first == null ? answer : first;
            }
        }
        return new Flood(slowest, first == null ? new byte[0] : first);
    }

    private static Flood together(InetSocketAddress server, int n, Hostile hostile) throws IOException {
        List<Socket> all = new ArrayList<>(n);
        try {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Socket s = new Socket();
                all.add(s);
                s.connect(server, (int) PATIENCE.toMillis());
                s.setSoTimeout((int) PATIENCE.toMillis());
                hostile.act(s);
            }
            long slowest = 0;
            byte[] first = null;
            for (Socket s : all) {
                byte[] answer = readToEnd(s);
                first = first == null ? answer : first;
            }
            slowest = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            return new Flood(slowest, first);
        } finally {
            for (Socket s : all) {
                s.close();
            }
        }
    }

    /** What the server sends until it closes (an end of stream or a reset). */
    private static byte[] readToEnd(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        byte[] buf = new byte[512];
        try {
            for (int r; (r = in.read(buf)) >= 0; ) {
                got.write(buf, 0, r);
            }
        } catch (SocketException reset) {
            // closed with a reset: as good an end as any
        }
        return got.toByteArray();
    }

    private void echo(Loop loop, Connection c, String text) {
        byte[] msg = text.getBytes(StandardCharsets.US_ASCII);
        await(loop, c.write(msg));
        ByteBuffer back = ByteBuffer.allocate(msg.length);
        while (back.hasRemaining()) {
            assertTrue(await(loop, c.read(back)) > 0, "the good client's connection ended");
        }
        assertArrayEquals(msg, back.array(), text);
    }

    // ------------------------------------------------------------------ hellos written by hand

    /**
     * An SSLv2-format ClientHello as old clients sent it to find out whether a server spoke SSL 3 or
     * TLS: a two-byte header (high bit set, 15 bits of length), message type 1, version 3.1, then
     * the lengths of its cipher specs (7 of 3 bytes), session id (none) and challenge (16 bytes).
     */
    static byte[] sslv2Hello() {
        ByteBuffer b = ByteBuffer.allocate(2 + 46);
        b.put((byte) 0x80).put((byte) 46).put((byte) 1).put((byte) 3).put((byte) 1)
                .putShort((short) 21).putShort((short) 0).putShort((short) 16);
        int[] specs = {0x00002f, 0x000035, 0x00000a, 0x000005, 0x000004, 0x010080, 0x070080};
        for (int s : specs) {
            b.put((byte) (s >> 16)).put((byte) (s >> 8)).put((byte) s);
        }
        for (int i = 0; i < 16; i++) {
            b.put((byte) i);
        }
        return b.array();
    }

    /**
     * A TLS 1.0 ClientHello in a TLS 1.0 record: one cipher suite (TLS_RSA_WITH_AES_128_CBC_SHA), no
     * compression, no extensions. The JDK disables TLS 1.0, so a server here must refuse it.
     */
    static byte[] tls10Hello() {
        int body = 2 + 32 + 1 + 2 + 2 + 1 + 1;
        ByteBuffer b = ByteBuffer.allocate(5 + 4 + body);
        b.put((byte) 22).put((byte) 3).put((byte) 1).putShort((short) (4 + body));
        b.put((byte) 1).put((byte) 0).putShort((short) body);
        b.put((byte) 3).put((byte) 1);
        for (int i = 0; i < 32; i++) {
            b.put((byte) i);
        }
        b.put((byte) 0).putShort((short) 2).putShort((short) 0x002f).put((byte) 1).put((byte) 0);
        return b.array();
    }
}
