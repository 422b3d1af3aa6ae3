package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramOptions;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DatagramSimulationTest {
    private static final int PORT = 9;

    /** A host that binds {@link #PORT} and records every datagram's text, in order of arrival. */
    private static SimHost receiver(Simulation sim, List<String> got, DatagramOptions options) {
        return sim.host("server", loop -> {
            try {
                Datagrams.bind(loop, new InetSocketAddress(PORT), options)
                        .setHandler((ep, data, sender) -> got.add(StandardCharsets.UTF_8.decode(data).toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** A host that sends "0", "1", ... to {@code to}, one every {@code every}. */
    private static SimHost sender(Simulation sim, SimHost to, int count, Duration every) {
        return sim.host("client", loop -> loop.spawn(() -> {
            DatagramEndpoint ep = Datagrams.bind(loop, new InetSocketAddress(0));
            for (int i = 0; i < count; i++) {
                Async.await(ep.send(utf8(Integer.toString(i)), new InetSocketAddress(to.address(), PORT)));
                Async.sleep(every);
            }
            return null;
        }));
    }

    /** 300 datagrams, one a millisecond, over a link that loses, duplicates and jitters: what arrived, in order. */
    private static List<String> lossyRun(long seed) {
        try (Simulation sim = Simulation.create(seed)) {
            sim.faults().latency(Duration.ofMillis(1), Duration.ofMillis(4)).datagramLoss(0.2).datagramDuplication(0.1);
            List<String> got = new CopyOnWriteArrayList<>();
            SimHost server = receiver(sim, got, DatagramOptions.defaults());
            sender(sim, server, 300, Duration.ofMillis(1));
            sim.run(Duration.ofSeconds(2));
            DatagramStats s = sim.datagramStats();
            assertEquals(300, s.sent());
            assertEquals(got.size(), s.delivered());
            assertEquals(s.sent() - s.lost() + s.duplicated(), s.delivered(), "every copy not lost arrived: " + s);
            return got;
        }
    }

    @Test
    void aSeededRunWithLossAndDuplicationReplaysAndAnotherSeedDiffers() {
        List<String> a = lossyRun(17);
        List<String> b = lossyRun(17);
        List<String> c = lossyRun(18);
        assertEquals(a, b, "the same seed loses, duplicates and reorders the same datagrams");
        assertNotEquals(a, c, "another seed draws other faults");
        // the faults really were there: some lost, some twice, some overtaken by a later one
        assertTrue(new HashSet<>(a).size() < 300, "some were lost");
        assertTrue(new HashSet<>(a).size() < a.size(), "some arrived twice");
        boolean reordered = false;
        for (int i = 1; i < a.size(); i++) {
            reordered |= Integer.parseInt(a.get(i)) < Integer.parseInt(a.get(i - 1));
        }
        assertTrue(reordered, "jitter of 4 ms over sends 1 ms apart reorders some: " + a);
    }

    @Test
    void theLossRateIsWhatWasAskedFor() {
        int n = 4000;
        double rate = 0.3;
        try (Simulation sim = Simulation.create(5)) {
            sim.faults().datagramLoss(rate);
            List<String> got = new CopyOnWriteArrayList<>();
            SimHost server = receiver(sim, got, DatagramOptions.defaults());
            sender(sim, server, n, Duration.ofMillis(1));
            sim.run(Duration.ofSeconds(10));
            DatagramStats s = sim.datagramStats();
            // binomial: mean 1200, standard deviation 29; five of them either way
            double sd = Math.sqrt(n * rate * (1 - rate));
            assertTrue(Math.abs(s.lost() - n * rate) < 5 * sd, "lost " + s.lost() + " of " + n + " at " + rate);
            assertEquals(n - s.lost(), got.size(), "the rest arrived: " + s);
            assertEquals(0, s.duplicated() + s.overflowed() + s.cut());
        }
    }

    @Test
    void aLossRateOnOneLinkLeavesTheOthersAloneAndCountsBothWays() {
        try (Simulation sim = Simulation.create(9)) {
            List<String> got = new CopyOnWriteArrayList<>();
            SimHost server = receiver(sim, got, DatagramOptions.defaults());
            SimHost client = sender(sim, server, 200, Duration.ofMillis(1));
            SimHost other = sim.host("other", loop -> { });
            sim.faults().datagramLoss(client, other, 1.0);
            // named the other way round from the traffic: a link's rate holds both ways
            sim.at(Duration.ofMillis(100), () -> sim.faults().datagramLoss(server, client, 1.0));
            sim.run(Duration.ofSeconds(1));
            assertTrue(got.size() >= 95 && got.size() <= 105, "sent one a millisecond, lost from 100 ms: " + got.size());
            for (int i = 0; i < 95; i++) {
                assertEquals(Integer.toString(i), got.get(i), "before 100 ms the loss on client -> other took nothing");
            }
            assertEquals(200 - got.size(), sim.datagramStats().lost());
            assertThrows(IllegalArgumentException.class, () -> sim.faults().datagramLoss(1.5));
        }
    }

    @Test
    void aPartitionDropsDatagramsAndHealingLetsThemThroughAgain() {
        try (Simulation sim = Simulation.create(3)) {
            sim.faults().latency(Duration.ofMillis(1), Duration.ZERO);
            List<String> got = new CopyOnWriteArrayList<>();
            SimHost server = receiver(sim, got, DatagramOptions.defaults());
            SimHost client = sender(sim, server, 30, Duration.ofMillis(10));
            sim.at(Duration.ofMillis(100), () -> sim.faults().partition(server, client));
            sim.at(Duration.ofMillis(200), () -> sim.faults().heal(server, client));
            sim.run(Duration.ofSeconds(1));
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                if (i < 10 || i >= 20) { // sent at i x 10 ms, 1 ms on the way: 10 to 19 arrive into the partition
                    expected.add(Integer.toString(i));
                }
            }
            assertEquals(expected, got, "datagrams are not sent again: what met the partition is gone");
            assertEquals(10, sim.datagramStats().cut());
        }
    }

    @Test
    void aFullReceiveBufferDropsWhatComesAndCountsIt() {
        try (Simulation sim = Simulation.create(1)) {
            List<DatagramEndpoint> server = new CopyOnWriteArrayList<>();
            SimHost host = sim.host("server", loop -> {
                try {
                    server.add(Datagrams.bind(loop, new InetSocketAddress(PORT),
                            DatagramOptions.defaults().withBufferSizes(0, 4096))); // nobody receives yet
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            sim.host("client", loop -> loop.spawn(() -> {
                DatagramEndpoint ep = Datagrams.bind(loop, new InetSocketAddress(0));
                for (int i = 0; i < 100; i++) {
                    ep.send(new byte[100], new InetSocketAddress(host.address(), PORT));
                }
                return null;
            }));
            sim.run(Duration.ofSeconds(1));
            // each queued datagram costs its 100 bytes and 256 of overhead; one is taken while under 4096
            int kept = (4096 + 355) / 356;
            DatagramStats s = sim.datagramStats();
            assertEquals(kept, s.delivered(), s.toString());
            assertEquals(100 - kept, s.overflowed(), s.toString());
            List<Integer> sizes = new CopyOnWriteArrayList<>();
            Loop loop = host.loop();
            loop.execute(() -> loop.spawn(() -> {
                while (true) {
                    sizes.add(Async.await(server.get(0).receive()).data().remaining());
                }
            }));
            sim.run(Duration.ofSeconds(1));
            assertEquals(kept, sizes.size(), "what the buffer kept is received, nothing more");
        }
    }

    @Test
    void aConnectedSenderHearsPortUnreachableAfterTheRoundTrip() {
        try (Simulation sim = Simulation.create(4)) {
            sim.faults().latency(Duration.ofMillis(5), Duration.ZERO);
            SimHost server = sim.host("server", loop -> { });
            Throwable[] failure = new Throwable[1];
            long[] at = new long[1];
            sim.host("client", loop -> loop.spawn(() -> {
                DatagramEndpoint ep = Datagrams.connect(loop, new InetSocketAddress(server.address(), PORT));
                Async.await(ep.send(utf8("anyone?")));
                try {
                    Async.await(ep.receive(), IOException.class);
                } catch (IOException e) {
                    failure[0] = e;
                    at[0] = loop.time();
                }
                return null;
            }));
            sim.runUntil(() -> failure[0] != null, Duration.ofSeconds(5));
            assertInstanceOf(PortUnreachableException.class, failure[0]);
            assertTrue(at[0] >= Duration.ofMillis(10).toNanos(), "not before the round trip: " + at[0] + " ns");
            assertEquals(1, sim.datagramStats().unreachable());
        }
    }

    @Test
    void aGroupReachesEveryMemberOnEveryHostButNotAcrossAPartition() throws Exception {
        NetworkInterface nif = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        InetAddress group = InetAddress.getByName("239.1.2.3");
        try (Simulation sim = Simulation.create(8)) {
            List<String> got = new CopyOnWriteArrayList<>();
            List<SimHost> members = new ArrayList<>();
            for (String name : List.of("a", "b", "c")) {
                members.add(sim.host(name, loop -> {
                    try {
                        DatagramEndpoint ep = Datagrams.bind(loop, new InetSocketAddress(5000));
                        ep.joinGroup(group, nif);
                        ep.setHandler((e, data, sender) -> got.add(name + ":" + StandardCharsets.UTF_8.decode(data)));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }));
            }
            SimHost sender = sim.host("sender", loop -> loop.spawn(() -> {
                DatagramEndpoint ep = Datagrams.bind(loop, new InetSocketAddress(0));
                Async.await(ep.send(utf8("hello"), new InetSocketAddress(group, 5000)));
                return null;
            }));
            sim.faults().partition(sender, members.get(2));
            sim.run(Duration.ofSeconds(1));
            assertEquals(List.of("a:hello", "b:hello"), got.stream().sorted().toList());
            assertEquals(1, sim.datagramStats().cut());
        }
    }

    @Test
    void aSocketBoundToLoopbackCannotSendToAnotherHost() {
        try (Simulation sim = Simulation.create(2)) {
            SimHost server = sim.host("server", loop -> { });
            Throwable[] failure = new Throwable[1];
            sim.host("client", loop -> {
                try {
                    DatagramEndpoint ep = Datagrams.bind(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                    ep.send(utf8("out"), new InetSocketAddress(server.address(), PORT)).onDone(f -> failure[0] = f.exception());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            sim.runUntil(() -> failure[0] != null, Duration.ofSeconds(1));
            assertInstanceOf(SocketException.class, failure[0]);
            assertTrue(failure[0].getMessage().endsWith("Invalid argument"), failure[0].getMessage());
            assertEquals(0, sim.datagramStats().sent());
        }
    }

    @Test
    void addressesBindAsInTheKernelAndADatagramReachesTheSocketOfItsAddress() {
        try (Simulation sim = Simulation.create(6)) {
            List<String> got = new CopyOnWriteArrayList<>();
            List<Throwable> refused = new CopyOnWriteArrayList<>();
            List<InetSocketAddress> ephemeral = new CopyOnWriteArrayList<>();
            SimHost host = sim.host("host", loop -> loop.spawn(() -> {
                InetAddress v4 = InetAddress.getByName("127.0.0.1");
                InetAddress v6 = InetAddress.getByName("::1");
                for (InetAddress a : List.of(v4, v6)) { // one port, two addresses: no clash
                    Datagrams.bind(loop, new InetSocketAddress(a, PORT))
                            .setHandler((ep, data, sender) -> got.add(a.getHostAddress() + " got "
                                    + StandardCharsets.UTF_8.decode(data)));
                }
                for (InetSocketAddress taken : List.of(new InetSocketAddress(PORT), // the wildcard overlaps both
                        new InetSocketAddress(InetAddress.getByName("10.0.0.9"), PORT))) { // not this host's
                    try {
                        Datagrams.bind(loop, taken);
                    } catch (IOException e) {
                        refused.add(e);
                    }
                }
                DatagramEndpoint client = Datagrams.bind(loop, new InetSocketAddress(v6, 0));
                ephemeral.add(client.localAddress());
                Async.await(client.send(utf8("six"), new InetSocketAddress(v6, PORT)));
                return null;
            }));
            sim.runUntil(() -> !got.isEmpty(), Duration.ofSeconds(1));
            assertEquals(List.of("0:0:0:0:0:0:0:1 got six"), got, "the socket on ::1, not the one on 127.0.0.1");
            assertEquals(2, refused.size(), refused.toString());
            assertEquals("Address already in use: " + new InetSocketAddress(PORT), refused.get(0).getMessage());
            assertEquals("Cannot assign requested address: /10.0.0.9:" + PORT, refused.get(1).getMessage());
            assertEquals(32768, ephemeral.get(0).getPort(), "ephemeral ports start where Linux's do");
            assertTrue(host.isUp());
        }
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
