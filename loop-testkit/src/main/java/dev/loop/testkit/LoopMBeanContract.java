package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopMXBean;
import dev.loop.ManualClock;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each loop is an MBean in the platform MBean server, as JConsole and JMC find it: registered when
 * it opens under a name no other loop has, showing its metrics, gone when it closes.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#loops")
public class LoopMBeanContract extends LoopSuite {

    private static ObjectName nameOf(Loop loop) throws Exception {
        return new ObjectName("dev.loop:type=Loop,name=" + ObjectName.quote(loop.name()));
    }

    @Test
    void aLoopIsAnMBeanFromOpenToCloseShowingItsMetrics() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ManualClock clock = ManualClock.create();
        Loop loop = open(options().withClock(clock));
        Loop other = open();
        ObjectName name = nameOf(loop);
        assertTrue(server.isRegistered(name), name + " after open");
        assertNotEquals(name, nameOf(other), "each loop has a name of its own");
        assertTrue(server.isRegistered(nameOf(other)));

        loop.execute(() -> clock.advance(Duration.ofMillis(2)));
        spin(loop);
        LoopMXBean bean = JMX.newMXBeanProxy(server, name, LoopMXBean.class);
        assertEquals(loop.name(), bean.getName());
        assertEquals(loop.backendName(), bean.getBackend());
        assertEquals(loop.metrics().callbacks(), bean.getCallbacks());
        assertEquals(2_000_000, bean.getIterationTimeMaxNanos());
        assertEquals(1.0, (Double) server.getAttribute(name, "BusyRatio"), "read as JConsole reads it");
        assertEquals(loop.metrics().backendCounters(), bean.getBackendCounters(), "the backend's own counts, by name");
        assertEquals(0L, server.getAttribute(name, "DatagramsIn"));
        assertEquals(0L, server.getAttribute(name, "StreamWrites"));

        loop.close();
        assertFalse(server.isRegistered(name), name + " after close");
        assertTrue(server.isRegistered(nameOf(other)), "the other loop is still open");
    }
}
