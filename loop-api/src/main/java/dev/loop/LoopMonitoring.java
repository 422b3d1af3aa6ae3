package dev.loop;

import dev.loop.engine.LoopEvents;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import jdk.jfr.FlightRecorder;

/**
 * What the tools outside see of the open loops: an MBean each ({@link LoopMXBean}) and the periodic
 * {@code dev.loop.LoopStatistics} JFR event. A loop joins when it opens and leaves when it closes;
 * neither can fail the loop (a platform without JMX or JFR just shows nothing).
 */
final class LoopMonitoring {
    /** Each open loop, with its metrics at the previous statistics event (for a busy ratio over the period). */
    private static final Map<DefaultLoop, LoopMetrics> OPEN = new ConcurrentHashMap<>();
    private static final Runnable PERIODIC = LoopMonitoring::emitStatistics;

    static {
        try {
            FlightRecorder.addPeriodicEvent(LoopEvents.LoopStatistics.class, PERIODIC);
        } catch (Throwable noFlightRecorder) {
            // the loops run as well without it
        }
    }

    private LoopMonitoring() {
    }

    /** The loop's MBean name: unique, since loop names are. */
    static ObjectName objectName(Loop loop) throws JMException {
        return new ObjectName("dev.loop:type=Loop,name=" + ObjectName.quote(((DefaultLoop) loop).stats().name()));
    }

    static void opened(DefaultLoop loop) {
        OPEN.put(loop, loop.metrics());
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            server.registerMBean(new Bean(loop), objectName(loop));
        } catch (Throwable noJmx) {
            // as in the class comment
        }
    }

    static void closed(DefaultLoop loop) {
        OPEN.remove(loop);
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName(loop));
        } catch (Throwable notThere) {
            // as in the class comment
        }
    }

    /**
     * The flight recorder calls this only while a recording has the statistics event enabled, once
     * per period: with JFR off, no snapshot is taken and no field is filled.
     */
    private static void emitStatistics() {
        for (Map.Entry<DefaultLoop, LoopMetrics> entry : OPEN.entrySet()) {
            try {
                emit(entry.getKey(), entry.getValue());
            } catch (RuntimeException oneLoop) {
                // a loop closing meanwhile: the others still get their event
            }
        }
    }

    private static void emit(DefaultLoop loop, LoopMetrics previous) {
        LoopMetrics m = loop.metrics();
        LoopEvents.LoopStatistics e = new LoopEvents.LoopStatistics();
        e.loop = loop.stats().name();
        e.busyRatio = m.busyRatioSince(previous);
        e.iterations = m.iterations();
        e.iterationP99 = m.iterationTime().p99Nanos();
        e.lagP50 = m.schedulingLag().p50Nanos();
        e.lagP99 = m.schedulingLag().p99Nanos();
        e.lagMax = m.schedulingLag().maxNanos();
        e.readyDepth = m.readyDepth();
        e.timersPending = m.timersPending();
        e.tasksAlive = m.tasksAlive();
        e.connectionsOpen = m.connectionsOpen();
        e.bytesIn = m.bytesIn();
        e.bytesOut = m.bytesOut();
        e.streamReads = m.streamReads();
        e.streamWrites = m.streamWrites();
        e.datagramsIn = m.datagramsIn();
        e.datagramsOut = m.datagramsOut();
        e.datagramsDropped = m.datagramsDropped();
        e.backendCounters = counters(m.backendCounters());
        e.commit();
        OPEN.replace(loop, previous, m);
    }

    /** {@code name=count} pairs, space-separated, in the backend's order: the event's form of them (LoopEvents says why). */
    private static String counters(Map<String, Long> counters) {
        StringBuilder b = new StringBuilder();
        counters.forEach((name, n) -> b.append(b.isEmpty() ? "" : " ").append(name).append('=').append(n));
        return b.toString();
    }

    /** The MBean: every attribute is read from one fresh snapshot. */
    private static final class Bean implements LoopMXBean {
        private final DefaultLoop loop;

        Bean(DefaultLoop loop) {
            this.loop = loop;
        }

        private LoopMetrics m() {
            return loop.metrics();
        }

        @Override public String getName() { return loop.stats().name(); }
        @Override public String getBackend() { return loop.backendName(); }
        @Override public double getBusyRatio() { return m().busyRatio(); }
        @Override public long getBusyNanos() { return m().busyNanos(); }
        @Override public long getIdleNanos() { return m().idleNanos(); }
        @Override public long getIterations() { return m().iterations(); }
        @Override public long getIterationTimeP50Nanos() { return m().iterationTime().p50Nanos(); }
        @Override public long getIterationTimeP99Nanos() { return m().iterationTime().p99Nanos(); }
        @Override public long getIterationTimeMaxNanos() { return m().iterationTime().maxNanos(); }
        @Override public long getSchedulingLagP50Nanos() { return m().schedulingLag().p50Nanos(); }
        @Override public long getSchedulingLagP99Nanos() { return m().schedulingLag().p99Nanos(); }
        @Override public long getSchedulingLagMaxNanos() { return m().schedulingLag().maxNanos(); }
        @Override public long getCallbacks() { return m().callbacks(); }
        @Override public long getReadyDepth() { return m().readyDepth(); }
        @Override public long getFromOtherThreads() { return m().fromOtherThreads(); }
        @Override public long getTimersPending() { return m().timersPending(); }
        @Override public long getTimersFired() { return m().timersFired(); }
        @Override public long getTasksAlive() { return m().tasksAlive(); }
        @Override public long getTaskTurns() { return m().taskTurns(); }
        @Override public long getConnectionsOpen() { return m().connectionsOpen(); }
        @Override public long getAccepts() { return m().accepts(); }
        @Override public long getAcceptFailures() { return m().acceptFailures(); }
        @Override public long getBytesIn() { return m().bytesIn(); }
        @Override public long getBytesOut() { return m().bytesOut(); }
        @Override public long getTlsHandshakes() { return m().tlsHandshakes(); }
        @Override public long getTlsFailures() { return m().tlsFailures(); }
        @Override public long getStreamReads() { return m().streamReads(); }
        @Override public long getStreamWrites() { return m().streamWrites(); }
        @Override public long getDatagramsIn() { return m().datagramsIn(); }
        @Override public long getDatagramsOut() { return m().datagramsOut(); }
        @Override public long getDatagramsDropped() { return m().datagramsDropped(); }
        @Override public Map<String, Long> getBackendCounters() { return m().backendCounters(); }
    }
}
