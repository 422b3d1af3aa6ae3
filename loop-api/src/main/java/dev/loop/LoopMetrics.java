package dev.loop;

import dev.loop.engine.Engine;
import dev.loop.engine.LoopStats;
import dev.loop.spi.IoCounters;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of a loop's always-on metrics ({@link Loop#metrics()}), or of a group's loops summed
 * ({@link LoopGroup#metrics()}). Counts run from when the loop opened; subtract an earlier snapshot
 * for a rate. Taken on any thread; from another thread each value may be a moment old, and the
 * values are not taken at one instant. All zero when metrics are off ({@code -Dloop.metrics=false}).
 * docs/METRICS.md says what each means and how it is measured.
 *
 * @param loops             loops summed (1 for one loop)
 * @param busyNanos         time spent working: every iteration's time except a poll that could block
 * @param idleNanos         time spent in polls that could block (waiting for I/O, a timer or a submission)
 * @param iterations        iterations run
 * @param iterationTime     busy time per iteration
 * @param schedulingLag     per batch of callbacks: how long its oldest callback can have waited
 *                          since the loop could see it was ready
 * @param callbacks         callbacks run
 * @param readyDepth        callbacks in the last batch (the ready queue's depth when it ran)
 * @param readyDepthMax     the largest batch
 * @param fromOtherThreads  submissions taken from other threads (callbacks, timers, timer cancels)
 * @param timersPending     timers queued at the end of the last iteration
 * @param timersFired       timers that came due and ran
 * @param tasksAlive        tasks started and not finished
 * @param taskTurns         times a task got the loop thread (a switch to it)
 * @param connectionsOpened stream connections opened (accepted, connected or adopted)
 * @param connectionsClosed stream connections closed
 * @param accepts           connections accepted by servers
 * @param acceptFailures    accepts that failed (out of descriptors, typically)
 * @param bytesIn           bytes read by stream connections (after TLS decryption)
 * @param bytesOut          bytes written by stream connections (before TLS encryption)
 * @param tlsHandshakes     TLS handshakes completed
 * @param tlsFailures       TLS handshakes failed
 * @param streamReads       reads on stream connections that returned bytes (each a delivery to
 *                          the application: a handler's {@code onData}, a {@code read} completed,
 *                          or a chunk toward a {@code readLine}/{@code readExactly})
 * @param streamWrites      writes on stream connections: {@code write} and {@code sendFile} calls taken
 * @param datagramsIn       datagrams received
 * @param datagramsOut      datagrams sent (handed to the kernel, or held for its next batched send)
 * @param datagramsDropped  datagrams the kernel dropped at the loop's open UDP sockets (receive
 *                          buffer full); 0 where the kernel does not say or the sockets are not its own.
 *                          Not a count from the loop's opening: it falls when a socket closes
 * @param backendCounters   what the backend counts of its own work, by name (its system calls:
 *                          {@code select}, {@code epoll_wait}, {@code io_uring_enter}, ...); empty
 *                          when it counts nothing. docs/METRICS.md lists each backend's
 */
public record LoopMetrics(int loops, long busyNanos, long idleNanos, long iterations, Latency iterationTime,
                          Latency schedulingLag, long callbacks, long readyDepth, long readyDepthMax,
                          long fromOtherThreads, long timersPending, long timersFired, long tasksAlive,
                          long taskTurns, long connectionsOpened, long connectionsClosed, long accepts,
                          long acceptFailures, long bytesIn, long bytesOut, long tlsHandshakes,
                          long tlsFailures, long streamReads, long streamWrites, long datagramsIn,
                          long datagramsOut, long datagramsDropped, Map<String, Long> backendCounters) {

    public LoopMetrics {
        // in the backend's order, as it names them; unmodifiable, since a snapshot does not change
        backendCounters = Collections.unmodifiableMap(new LinkedHashMap<>(backendCounters));
    }

    /** Connections open now: opened and not yet closed. */
    public long connectionsOpen() {
        return connectionsOpened - connectionsClosed;
    }

    /** The fraction of time spent working, from 0 to 1, since the loop opened (0 before any iteration). */
    public double busyRatio() {
        long all = busyNanos + idleNanos;
        return all == 0 ? 0 : (double) busyNanos / all;
    }

    /** The fraction of time spent working between {@code earlier} (of the same loop or group) and this. */
    public double busyRatioSince(LoopMetrics earlier) {
        long busy = busyNanos - earlier.busyNanos;
        long all = busy + idleNanos - earlier.idleNanos;
        return all <= 0 ? 0 : (double) busy / all;
    }

    static LoopMetrics of(Engine engine, int tasksAlive) {
        LoopStats s = engine.stats();
        long[] it = new long[LoopStats.buckets()];
        long itMax = s.iterationTimes(it);
        long[] lag = new long[LoopStats.buckets()];
        long lagMax = s.lags(lag);
        return new LoopMetrics(1, s.get(LoopStats.BUSY_NANOS), s.get(LoopStats.IDLE_NANOS), engine.iterations(),
                new Latency(it, itMax), new Latency(lag, lagMax), s.get(LoopStats.CALLBACKS),
                s.get(LoopStats.READY_DEPTH), s.get(LoopStats.READY_DEPTH_MAX), s.get(LoopStats.FROM_OTHER_THREADS),
                s.get(LoopStats.TIMERS_PENDING), s.get(LoopStats.TIMERS_FIRED), tasksAlive,
                s.get(LoopStats.TASK_TURNS), s.get(LoopStats.CONNECTIONS_OPENED), s.get(LoopStats.CONNECTIONS_CLOSED),
                s.get(LoopStats.ACCEPTS), s.get(LoopStats.ACCEPT_FAILURES), s.get(LoopStats.BYTES_IN),
                s.get(LoopStats.BYTES_OUT), s.get(LoopStats.TLS_HANDSHAKES), s.get(LoopStats.TLS_FAILURES),
                s.get(LoopStats.STREAM_READS), s.get(LoopStats.STREAM_WRITES), s.get(LoopStats.DATAGRAMS_IN),
                s.get(LoopStats.DATAGRAMS_OUT), s.kernelUdpDrops(),
                s.isOn() ? backendCounters(engine.io().counters()) : Map.of());
    }

    private static Map<String, Long> backendCounters(IoCounters c) {
        if (c == null) {
            return Map.of();
        }
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < c.names().size(); i++) {
            m.put(c.names().get(i), c.get(i));
        }
        return m;
    }

    /** Each name's counts added up (loops of different backends have different names). */
    private static Map<String, Long> plus(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> m = new LinkedHashMap<>(a);
        b.forEach((k, v) -> m.merge(k, v, Long::sum));
        return m;
    }

    /** The loops' metrics summed: counts and histograms add up, depths add up, maxima are the largest. */
    public static LoopMetrics sum(List<LoopMetrics> all) {
        if (all.isEmpty()) {
            throw new IllegalArgumentException("nothing to sum");
        }
        LoopMetrics m = all.get(0);
        for (int i = 1; i < all.size(); i++) {
            LoopMetrics o = all.get(i);
            m = new LoopMetrics(m.loops + o.loops, m.busyNanos + o.busyNanos, m.idleNanos + o.idleNanos,
                    m.iterations + o.iterations, m.iterationTime.plus(o.iterationTime),
                    m.schedulingLag.plus(o.schedulingLag), m.callbacks + o.callbacks, m.readyDepth + o.readyDepth,
                    Math.max(m.readyDepthMax, o.readyDepthMax), m.fromOtherThreads + o.fromOtherThreads,
                    m.timersPending + o.timersPending, m.timersFired + o.timersFired, m.tasksAlive + o.tasksAlive,
                    m.taskTurns + o.taskTurns, m.connectionsOpened + o.connectionsOpened,
                    m.connectionsClosed + o.connectionsClosed, m.accepts + o.accepts,
                    m.acceptFailures + o.acceptFailures, m.bytesIn + o.bytesIn, m.bytesOut + o.bytesOut,
                    m.tlsHandshakes + o.tlsHandshakes, m.tlsFailures + o.tlsFailures, m.streamReads + o.streamReads,
                    m.streamWrites + o.streamWrites, m.datagramsIn + o.datagramsIn, m.datagramsOut + o.datagramsOut,
                    m.datagramsDropped + o.datagramsDropped, plus(m.backendCounters, o.backendCounters));
        }
        return m;
    }
}
