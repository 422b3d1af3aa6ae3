package dev.loop.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopGroup;
import dev.loop.Loops;
import dev.loop.ManualClock;
import dev.loop.testkit.Cell;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The binder's meters read what {@link Loop#metrics()} says, per backend, for a loop and for a group. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LoopMetricsBinderTest {

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#loops")
    void aLoopsMetersReadItsMetrics(Cell cell) {
        ManualClock clock = ManualClock.create();
        try (Loop loop = Loops.open(cell.options().withClock(clock))) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            LoopMetricsBinder.of(loop, Tag.of("app", "test")).bindTo(registry);
            loop.execute(() -> clock.advance(Duration.ofMillis(4)));
            loop.callLater(Duration.ofMillis(1), () -> { });
            loop.stop();
            loop.runForever();

            FunctionCounter callbacks = registry.get("loop.callbacks").tag("loop", loop.name())
                    .tag("backend", loop.backendName()).tag("app", "test").functionCounter();
            assertEquals(loop.metrics().callbacks(), (long) callbacks.count());
            assertTrue(callbacks.count() >= 1);
            Gauge max = registry.get("loop.iteration.time.max").tag("loop", loop.name()).gauge();
            assertEquals(0.004, max.value(), 1e-12, "4 ms on the loop's clock, in seconds");
            Gauge p99 = registry.get("loop.iteration.time").tag("quantile", "0.99").gauge();
            assertTrue(p99.value() >= 0.004 && p99.value() <= 0.0045, "" + p99.value());
            assertEquals(1.0, registry.get("loop.timers.pending").gauge().value());
            assertEquals(1.0, registry.get("loop.busy.ratio").gauge().value(), "no wait yet: all busy");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#loops")
    void theMetersOutliveAGarbageCollection(Cell cell) {
        try (Loop loop = Loops.open(cell.options())) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            LoopMetricsBinder.of(loop).bindTo(registry); // the binder and its snapshots: referenced by nobody else
            loop.callSoon(() -> { });
            loop.stop();
            loop.runForever();
            for (int i = 0; i < 3; i++) {
                System.gc(); // Micrometer holds a meter's object weakly: a collected one reads NaN
            }
            FunctionCounter callbacks = registry.get("loop.callbacks").functionCounter();
            assertTrue(callbacks.count() >= 1, "callbacks after a collection: " + callbacks.count());
            assertEquals(0.0, registry.get("loop.timers.pending").gauge().value(), "a gauge after a collection");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void datagramsAndTheBackendsSystemCallsAreMeters(Cell cell) throws Exception {
        try (Loop loop = Loops.open(cell.options())) {
            DatagramEndpoint server = Datagrams.bind(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            server.setHandler((ep, data, from) -> ep.send(data, from));
            DatagramEndpoint client = Datagrams.bind(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.send(ByteBuffer.wrap(new byte[] {1}), server.localAddress());
            loop.runUntilComplete(client.receive());
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            LoopMetricsBinder.of(loop).bindTo(registry); // after the traffic: its first snapshot sees it all

            assertEquals(2.0, registry.get("loop.datagrams.in").functionCounter().count());
            assertEquals(2.0, registry.get("loop.datagrams.out").functionCounter().count());
            assertEquals(0.0, registry.get("loop.datagrams.dropped").gauge().value());
            Map<String, Long> counted = loop.metrics().backendCounters();
            assertTrue(!counted.isEmpty(), "the kernel backends count their system calls: " + loop.backendName());
            Set<String> calls = new HashSet<>();
            double all = 0;
            for (FunctionCounter c : registry.get("loop.backend.calls").functionCounters()) {
                String call = c.getId().getTag("call");
                calls.add(call);
                assertEquals((double) counted.get(call), c.count(), call + " of " + counted);
                all += c.count();
            }
            assertEquals(counted.keySet(), calls);
            assertTrue(all > 0, "a round trip made system calls: " + counted);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void aGroupGetsOneSetOfMetersPerLoop(Cell cell) throws Exception {
        try (LoopGroup group = LoopGroup.open(2, cell.options())) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            LoopMetricsBinder.of(group).bindTo(registry);
            CountDownLatch ran = new CountDownLatch(6);
            for (Loop l : group.loops()) {
                for (int i = 0; i < 3; i++) {
                    l.execute(ran::countDown);
                }
            }
            assertTrue(ran.await(10, TimeUnit.SECONDS));
            Set<String> names = new HashSet<>();
            double submitted = 0;
            for (FunctionCounter c : registry.get("loop.submissions.cross.thread").functionCounters()) {
                names.add(c.getId().getTag("loop"));
                submitted += c.count();
            }
            assertEquals(Set.of(group.loops().get(0).name(), group.loops().get(1).name()), names);
            assertEquals(6.0, submitted);
            assertNotNull(registry.get("loop.busy.ratio").tag("loop", group.loops().get(1).name()).gauge());
        }
    }
}
