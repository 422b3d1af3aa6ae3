package dev.loop.micrometer;

import dev.loop.Loop;
import dev.loop.LoopGroup;
import dev.loop.LoopMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The loops' metrics ({@link Loop#metrics()}, docs/METRICS.md) as Micrometer meters, tagged
 * {@code loop=<loop name>} and {@code backend=<backend>}: one set per loop, for a single loop or
 * for each loop of a group. Counts are {@link FunctionCounter}s (a registry derives rates from
 * them), the rest {@link Gauge}s; durations are in seconds, as Micrometer's conventions want.
 *
 * <p>A scrape reads each loop's snapshot once, not once per meter: the meters of one loop share a
 * snapshot taken at most {@value #FRESH_MILLIS} ms before. Meters of a closed loop keep reporting
 * its last values; remove them from the registry if that matters.
 */
public final class LoopMetricsBinder implements MeterBinder {
    static final long FRESH_MILLIS = 100;

    private final List<Loop> loops;
    private final Iterable<Tag> tags;

    private LoopMetricsBinder(List<Loop> loops, Iterable<Tag> tags) {
        this.loops = loops;
        this.tags = tags;
    }

    /** Meters for {@code loop}, with {@code tags} added to each. */
    public static LoopMetricsBinder of(Loop loop, Tag... tags) {
        return new LoopMetricsBinder(List.of(Objects.requireNonNull(loop, "loop")), Tags.of(tags));
    }

    /** Meters for each loop of {@code group}, with {@code tags} added to each. */
    public static LoopMetricsBinder of(LoopGroup group, Tag... tags) {
        return new LoopMetricsBinder(List.copyOf(group.loops()), Tags.of(tags));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Loop loop : loops) {
            // the backend's counters are named once and for all: read them without filling the
            // shared snapshot, which would then be stale for the first scrape
            Set<String> calls = loop.metrics().backendCounters().keySet();
            bind(registry, new Snapshot(loop), calls, Tags.concat(tags, "loop", loop.name(), "backend", loop.backendName()));
        }
    }

    private static void bind(MeterRegistry r, Snapshot s, Set<String> calls, Tags t) {
        gauge(r, "loop.busy.ratio", "fraction of time the loop worked since the previous scrape", s, x -> x.busyRatioSinceLast(), t, null);
        counter(r, "loop.busy", "time the loop spent working", s, m -> m.busyNanos() / 1e9, t, "seconds");
        counter(r, "loop.idle", "time the loop spent waiting for I/O, timers or submissions", s, m -> m.idleNanos() / 1e9, t, "seconds");
        counter(r, "loop.iterations", "iterations run", s, m -> m.iterations(), t, null);
        for (double q : new double[] {0.5, 0.99}) {
            Tags tq = t.and("quantile", Double.toString(q));
            gauge(r, "loop.iteration.time", "busy time per iteration", s, x -> x.get().iterationTime().percentileNanos(q) / 1e9, tq, "seconds");
            gauge(r, "loop.scheduling.lag", "how long a batch's oldest ready callback waited", s, x -> x.get().schedulingLag().percentileNanos(q) / 1e9, tq, "seconds");
        }
        gauge(r, "loop.iteration.time.max", "the longest iteration's busy time", s, x -> x.get().iterationTime().maxNanos() / 1e9, t, "seconds");
        gauge(r, "loop.scheduling.lag.max", "the longest scheduling lag", s, x -> x.get().schedulingLag().maxNanos() / 1e9, t, "seconds");
        counter(r, "loop.callbacks", "callbacks run", s, m -> m.callbacks(), t, null);
        gauge(r, "loop.ready.depth", "callbacks in the last batch", s, x -> x.get().readyDepth(), t, null);
        counter(r, "loop.submissions.cross.thread", "submissions taken from other threads", s, m -> m.fromOtherThreads(), t, null);
        gauge(r, "loop.timers.pending", "timers queued", s, x -> x.get().timersPending(), t, null);
        counter(r, "loop.timers.fired", "timers that came due", s, m -> m.timersFired(), t, null);
        gauge(r, "loop.tasks.alive", "tasks started and not finished", s, x -> x.get().tasksAlive(), t, null);
        counter(r, "loop.task.turns", "times a task got the loop thread", s, m -> m.taskTurns(), t, null);
        gauge(r, "loop.connections.open", "stream connections open", s, x -> x.get().connectionsOpen(), t, null);
        counter(r, "loop.connections.opened", "stream connections opened", s, m -> m.connectionsOpened(), t, null);
        counter(r, "loop.accepts", "connections accepted", s, m -> m.accepts(), t, null);
        counter(r, "loop.accept.failures", "accepts that failed", s, m -> m.acceptFailures(), t, null);
        counter(r, "loop.bytes.in", "bytes stream connections read", s, m -> m.bytesIn(), t, "bytes");
        counter(r, "loop.bytes.out", "bytes stream connections wrote", s, m -> m.bytesOut(), t, "bytes");
        counter(r, "loop.tls.handshakes", "TLS handshakes completed", s, m -> m.tlsHandshakes(), t, null);
        counter(r, "loop.tls.failures", "TLS handshakes failed", s, m -> m.tlsFailures(), t, null);
        counter(r, "loop.stream.reads", "reads on stream connections that returned bytes", s, m -> m.streamReads(), t, null);
        counter(r, "loop.stream.writes", "write and sendFile calls on stream connections", s, m -> m.streamWrites(), t, null);
        counter(r, "loop.datagrams.in", "datagrams received", s, m -> m.datagramsIn(), t, null);
        counter(r, "loop.datagrams.out", "datagrams sent", s, m -> m.datagramsOut(), t, null);
        // a gauge: the kernel's count for the sockets open now, which falls when one closes
        gauge(r, "loop.datagrams.dropped", "datagrams the kernel dropped at the loop's open UDP sockets", s,
                x -> x.get().datagramsDropped(), t, null);
        // the backend names its counters, and they never change: one counter each, tagged with its name
        for (String name : calls) {
            counter(r, "loop.backend.calls", "what the backend counts of its own work (its system calls)", s,
                    m -> m.backendCounters().getOrDefault(name, 0L), t.and("call", name), null);
        }
    }

    private static void gauge(MeterRegistry r, String name, String help, Snapshot s, ToDoubleFunction<Snapshot> f,
                              Tags t, String unit) {
        // strongly: Micrometer holds a meter's object weakly, and nothing else holds the snapshot,
        // so after a garbage collection every meter of the loop would read NaN (function counters
        // share the snapshot and stay alive through these gauges)
        Gauge.builder(name, s, f).description(help).tags(t).baseUnit(unit).strongReference(true).register(r);
    }

    private static void counter(MeterRegistry r, String name, String help, Snapshot s, ToDoubleFunction<LoopMetrics> f,
                                Tags t, String unit) {
        FunctionCounter.builder(name, s, x -> f.applyAsDouble(x.get())).description(help).tags(t).baseUnit(unit).register(r);
    }

    /** One loop's metrics, taken again once they are older than {@link #FRESH_MILLIS}. Thread-safe. */
    static final class Snapshot {
        private final Loop loop;
        private LoopMetrics current;
        private LoopMetrics previousScrape;
        private double lastRatio;
        private long takenAt;

        Snapshot(Loop loop) {
            this.loop = loop;
        }

        synchronized LoopMetrics get() {
            long now = System.nanoTime();
            if (current == null || now - takenAt > TimeUnit.MILLISECONDS.toNanos(FRESH_MILLIS)) {
                current = loop.metrics();
                takenAt = now;
            }
            return current;
        }

        /** The busy ratio since this was last asked (since the loop opened, the first time). */
        synchronized double busyRatioSinceLast() {
            LoopMetrics m = get();
            if (previousScrape != null && m.busyNanos() + m.idleNanos() <= previousScrape.busyNanos() + previousScrape.idleNanos()) {
                return lastRatio; // asked again within the same snapshot: no new interval yet
            }
            lastRatio = previousScrape == null ? m.busyRatio() : m.busyRatioSince(previousScrape);
            previousScrape = m;
            return lastRatio;
        }
    }
}
