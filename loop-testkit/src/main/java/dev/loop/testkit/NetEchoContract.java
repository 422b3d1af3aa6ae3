package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Server;
import dev.loop.net.Unix;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Echo: random sizes byte-exact to blocking clients and to two hundred concurrent connections,
 * and an echo server, a producer/consumer pair and a countdown progressing together on one loop.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#sockets")
public class NetEchoContract extends StreamSuite {

    // ------------------------------------------------------------------ echo

    @Test
    void echoesRandomSizesByteExactToABlockingClient() throws Exception {
        assumeKernelSockets("the client is a blocking JDK socket");
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
}
