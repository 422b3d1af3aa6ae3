package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The UDP load against a UDP echo server on our loop in this JVM: windows, bursts, and what they count. */
class UdpLoadTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void windowsCountEchoedDatagramsAndABurstLeavesNothingInFlight() throws Exception {
        Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"));
        CompletableFuture<Integer> port = new CompletableFuture<>();
        AtomicLong served = new AtomicLong();
        Thread t = new Thread(() -> {
            try {
                DatagramEndpoint e = Datagrams.bind(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                e.setHandler((ep, data, sender) -> {
                    served.incrementAndGet();
                    ep.send(data, sender);
                });
                port.complete(e.localAddress().getPort());
                loop.runForever();
            } catch (Throwable e) {
                port.completeExceptionally(e);
            }
        }, "udp-test-loop");
        t.start();
        try {
            ServerLoad.Endpoint server = EchoEndToEndTest.at(port.get(10, TimeUnit.SECONDS));
            List<String> meter = new ArrayList<>();
            ServerLoad.Meter m = new ServerLoad.Meter() {
                @Override
                public void begin() {
                    meter.add("begin " + served.get());
                }

                @Override
                public void end() {
                    meter.add("end " + served.get());
                }
            };
            UdpLoad load = new UdpLoad(2, 4, 64);
            ServerLoad.Window w = load.run(server, Duration.ofMillis(100), Duration.ofMillis(200), false, m);
            assertEquals(2, meter.size());
            assertTrue(meter.get(0).startsWith("begin ") && !meter.get(0).equals("begin 0"),
                    "the settle period loads the server before the window: " + meter);
            assertTrue(w.operations() > 20, "implausibly slow: " + w);
            assertEquals(w.operations() * 64, w.bytes());
            assertTrue(w.seconds() >= 0.2, w.toString());

            // a burst starts with the meter, and every datagram still out is answered (or lost) before it ends
            meter.clear();
            long before = served.get();
            ServerLoad.Window b = load.run(server, Duration.ZERO, Duration.ofMillis(100), true, m);
            assertEquals("begin " + before, meter.get(0), "no load before a burst's meter begins");
            long servedInBurst = Long.parseLong(meter.get(1).substring("end ".length())) - before;
            assertTrue(b.operations() > 0, b.toString());
            assertTrue(servedInBurst >= b.operations(), servedInBurst + " served, " + b.operations() + " counted");
        } finally {
            loop.stop();
            t.join(5000);
            loop.close();
        }
    }
}
