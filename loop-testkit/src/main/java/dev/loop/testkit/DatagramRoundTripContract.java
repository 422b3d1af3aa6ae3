package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static dev.loop.testkit.Runs.spin;
import static dev.loop.testkit.Runs.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramEndpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips: byte-exact and naming the sender, from a task in sequence, many peers on one socket
 * each getting only its own answers, and a handler that gets every datagram in order and can be
 * paused.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class DatagramRoundTripContract extends DatagramSuite {

    @Test
    void roundTripsAreByteExactAndNameTheSender() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = echo(loop);
        DatagramEndpoint client = bind(loop);
        Random rnd = new Random(3);
        for (int size : new int[] {0, 1, 1000, 8192, MAX_IPV4_DATAGRAM}) {
            byte[] data = new byte[size];
            rnd.nextBytes(data);
            await(loop, client.send(data, server.localAddress()));
            Datagram back = await(loop, client.receive());
            assertArrayEquals(data, back.data().array(), "a datagram of " + size + " bytes");
            assertEquals(0, back.data().position());
            assertEquals(server.localAddress(), back.sender());
            assertFalse(back.truncated());
        }
    }

    @Test
    void aTaskReceivesAndSendsInSequence() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = echo(loop);
        DatagramEndpoint client = bind(loop);
        List<String> got = await(loop, loop.spawn(() -> {
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Async.await(client.send(utf8("ping " + i), server.localAddress()), IOException.class);
                Datagram d = Async.await(client.receive(), IOException.class);
                answers.add(text(d));
            }
            return answers;
        }));
        assertEquals(List.of("ping 0", "ping 1", "ping 2", "ping 3", "ping 4"), got);
    }

    @Test
    void manyPeersShareOneSocketAndEachGetsOnlyItsOwnAnswers() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = echo(loop);
        int peers = 40;
        int rounds = 25;
        List<LoopFuture<List<String>>> all = new ArrayList<>();
        for (int p = 0; p < peers; p++) {
            DatagramEndpoint client = bind(loop);
            int peer = p;
            // one datagram in flight per peer: nothing can overflow a receive buffer and be dropped
            all.add(loop.spawn(() -> {
                List<String> answers = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    Async.await(client.send(utf8(peer + "/" + r), server.localAddress()), IOException.class);
                    Datagram d = Async.await(client.receive(), IOException.class);
                    assertEquals(server.localAddress(), d.sender());
                    answers.add(text(d));
                }
                client.close();
                return answers;
            }));
        }
        List<List<String>> got = await(loop, LoopFuture.all(loop, all));
        for (int p = 0; p < peers; p++) {
            List<String> expected = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                expected.add(p + "/" + r);
            }
            assertEquals(expected, got.get(p), "peer " + p);
        }
    }

    @Test
    void aHandlerGetsEveryDatagramInOrderAndCanBePaused() throws Exception {
        Loop loop = open();
        DatagramEndpoint server = bind(loop);
        List<String> got = new ArrayList<>();
        server.setHandler((ep, data, sender) -> got.add(StandardCharsets.UTF_8.decode(data).toString()));
        DatagramEndpoint client = bind(loop);
        for (int i = 0; i < 100; i++) {
            client.send(utf8("d" + i), server.localAddress());
        }
        until(loop, () -> got.size() == 100, "100 datagrams arrived");
        for (int i = 0; i < 100; i++) {
            assertEquals("d" + i, got.get(i));
        }
        server.pauseReceiving();
        client.send(utf8("late"), server.localAddress());
        spin(loop, 5);
        assertEquals(100, got.size(), "nothing is received while paused");
        server.resumeReceiving();
        until(loop, () -> got.size() == 101, "the datagram held by the kernel arrived");
        assertEquals("late", got.get(100));
    }
}
