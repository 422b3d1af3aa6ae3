package dev.loop;

/**
 * A loop as JMX shows it (JConsole, JDK Mission Control): registered as
 * {@code dev.loop:type=Loop,name=<loop name>} when the loop opens and unregistered when it closes.
 * Each attribute is the {@linkplain Loop#metrics() metric} of the same name (docs/METRICS.md);
 * durations in nanoseconds.
 */
public interface LoopMXBean {
    String getName();

    String getBackend();

    double getBusyRatio();

    long getBusyNanos();

    long getIdleNanos();

    long getIterations();

    long getIterationTimeP50Nanos();

    long getIterationTimeP99Nanos();

    long getIterationTimeMaxNanos();

    long getSchedulingLagP50Nanos();

    long getSchedulingLagP99Nanos();

    long getSchedulingLagMaxNanos();

    long getCallbacks();

    long getReadyDepth();

    long getFromOtherThreads();

    long getTimersPending();

    long getTimersFired();

    long getTasksAlive();

    long getTaskTurns();

    long getConnectionsOpen();

    long getAccepts();

    long getAcceptFailures();

    long getBytesIn();

    long getBytesOut();

    long getTlsHandshakes();

    long getTlsFailures();

    long getStreamReads();

    long getStreamWrites();

    long getDatagramsIn();

    long getDatagramsOut();

    long getDatagramsDropped();

    /** The backend's own counts by name (its system calls), empty when it keeps none. */
    java.util.Map<String, Long> getBackendCounters();
}
