package dev.loop.engine;

import dev.loop.spi.LoopClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The loop's always-on metrics, written by the loop thread alone: a handful of clock reads per
 * iteration (none per callback), counters the networking layer bumps, and two {@link Histogram}s.
 * Nothing here allocates, locks or executes an atomic read-modify-write; every value is stored
 * opaquely so that a reader on any thread sees whole values, each at most a moment old.
 * What each value means is in docs/METRICS.md. Off ({@code -Dloop.metrics=false}) every method
 * returns at once and the loop reads no clock for metrics.
 *
 * <p>Durations come from the loop's own clock, so a test with a manual clock sees exact values.
 */
public final class LoopStats {
    /** The system property that turns the metrics off ({@code false}); on by default. */
    public static final String PROPERTY = "loop.metrics";

    // Indexes into the counter array, in the order of {@link #NAMES}.
    public static final int BUSY_NANOS = 0;
    public static final int IDLE_NANOS = 1;
    public static final int CALLBACKS = 2;
    public static final int FROM_OTHER_THREADS = 3;
    public static final int TIMERS_FIRED = 4;
    public static final int TASK_TURNS = 5;
    public static final int READY_DEPTH = 6;
    public static final int READY_DEPTH_MAX = 7;
    public static final int TIMERS_PENDING = 8;
    public static final int CONNECTIONS_OPENED = 9;
    public static final int CONNECTIONS_CLOSED = 10;
    public static final int ACCEPTS = 11;
    public static final int ACCEPT_FAILURES = 12;
    public static final int BYTES_IN = 13;
    public static final int BYTES_OUT = 14;
    public static final int TLS_HANDSHAKES = 15;
    public static final int TLS_FAILURES = 16;
    public static final int STREAM_READS = 17;
    public static final int STREAM_WRITES = 18;
    public static final int DATAGRAMS_IN = 19;
    public static final int DATAGRAMS_OUT = 20;
    public static final int COUNTERS = 21;

    /** How often a loop reads the kernel's UDP drops at most, whatever asks. */
    public static final long DROPS_READ_INTERVAL_NANOS = 1_000_000_000L;

    private static final long NONE = Long.MIN_VALUE;
    private static final VarHandle VALUE = MethodHandles.arrayElementVarHandle(long[].class);

    private static final AtomicInteger LOOPS = new AtomicInteger();

    private final LoopClock clock;
    private final String name;
    private final long slowNanos;
    private final boolean on;
    /** A virtual clock jumps while the loop decides how long to wait: that jump is idle time too. */
    private final boolean virtualClock;
    private final long[] values = new long[COUNTERS];
    private final Histogram iterationTimes = new Histogram();
    private final Histogram lags = new Histogram();
    /**
     * The local addresses of the loop's open kernel UDP sockets, whose drops a snapshot reads from
     * the kernel; made when the first opens (most loops have none). Written on the loop thread,
     * read by snapshots on any thread.
     */
    private volatile Map<InetSocketAddress, Integer> udpSockets; // with SO_REUSEPORT, several share an address
    // The kernel's drops as last read, and when (System.nanoTime): reading the table costs a walk of
    // every UDP socket of the host (docs/METRICS.md), so a loop reads it at most once per interval
    // however many snapshots are taken (an MXBean attribute, a scrape, a JFR period each take one).
    private volatile long drops;
    private volatile long dropsReadAt;
    private volatile boolean dropsFresh; // false: a socket opened or closed since the last read

    /** Iterations begun, metrics on or off. Written by the loop thread alone, like the rest of this object. */
    private long iterations;

    // The iteration in progress (loop thread only, never read elsewhere).
    private long iterationStart;
    private long idleThisIteration;
    private long pollReturned;
    private long waitBegun = NONE;
    /** When the last iteration ended, while the loop keeps running: the next one begins then. */
    private long lastEnd = NONE;
    private long lastBatchStart;
    /** The last batch left callbacks behind: the next batch's oldest waited since lastBatchStart. */
    private boolean carried;
    private int batch;

    /**
     * @param slowNanos an iteration busy this long is a {@linkplain LoopEvents.LoopStall stall}, a
     *                  task turn this long a {@linkplain LoopEvents.SlowTaskTurn slow} one
     */
    LoopStats(LoopClock clock, String backendName, long slowNanos) {
        this.clock = clock;
        this.name = "loop-" + LOOPS.incrementAndGet() + "-" + backendName;
        this.slowNanos = slowNanos;
        this.on = !"false".equalsIgnoreCase(System.getProperty(PROPERTY));
        this.virtualClock = !clock.isReal();
    }

    /** The loop's name, unique in this JVM: {@code loop-<n>-<backend>}, as events, logs and MBeans call it. */
    public String name() {
        return name;
    }

    /** Iterations begun so far. Any thread (a plain read: at most a moment old). */
    public long iterations() {
        return iterations;
    }

    /** Whether the loop keeps metrics ({@value #PROPERTY} is not {@code false}). */
    public boolean isOn() {
        return on;
    }

    private void add(int i, long delta) {
        VALUE.setOpaque(values, i, values[i] + delta);
    }

    private void set(int i, long v) {
        VALUE.setOpaque(values, i, v);
    }

    // ---------------------------------------------------------------- the engine (loop thread)

    /**
     * An iteration begins: at the end of the previous one while the loop runs on (nothing of the
     * loop's happens in between), which saves a clock read per iteration.
     */
    void iterationBegins() {
        iterations++;
        if (on) {
            long now = lastEnd != NONE ? lastEnd : clock.nanoTime();
            lastEnd = NONE;
            iterationStart = now;
            pollReturned = now;
            idleThisIteration = 0;
        }
    }

    /** Phase 2 found nothing ready: the loop may wait. Reads a virtual clock only (a real one waits in the poll). */
    void mayWait() {
        if (on && virtualClock) {
            waitBegun = clock.nanoTime();
        }
    }

    /**
     * Before a poll: when its wait began if it may block (a wait is idle time, not busy), else
     * {@code NONE}, without reading the clock.
     */
    long pollBegins(long timeout) {
        if (!on) {
            return NONE;
        }
        long begun = waitBegun;
        if (begun != NONE) {
            waitBegun = NONE;
            return begun;
        }
        return timeout != 0 ? clock.nanoTime() : NONE;
    }

    void pollEnded(long begun) {
        if (begun != NONE) {
            long now = clock.nanoTime();
            idleThisIteration += now - begun;
            pollReturned = now;
        }
    }

    /**
     * The callback phase begins with {@code n} ready. The lag recorded is how long the oldest of
     * them can have waited since the loop could see it: since the previous batch began when that
     * batch left callbacks behind (they were queued during it), else since the poll returned (what
     * I/O, timers and other threads made ready became visible then), or since the iteration began
     * when the poll did not block.
     */
    void callbacksBegin(int n) {
        if (on && n > 0) {
            long now = clock.nanoTime();
            lags.record(now - (carried ? lastBatchStart : pollReturned));
            lastBatchStart = now;
            batch = n;
            add(CALLBACKS, n);
            set(READY_DEPTH, n);
            if (n > values[READY_DEPTH_MAX]) {
                set(READY_DEPTH_MAX, n);
            }
        }
    }

    void iterationEnds(int readyLeft, int timersPending) {
        if (on) {
            long now = clock.nanoTime();
            lastEnd = now;
            long busy = now - iterationStart - idleThisIteration;
            iterationTimes.record(busy);
            add(BUSY_NANOS, Math.max(busy, 0));
            add(IDLE_NANOS, idleThisIteration);
            set(TIMERS_PENDING, timersPending);
            carried = readyLeft > 0;
            if (busy >= slowNanos && LoopEvents.STALL.on()) {
                stalled(busy);
            }
            batch = 0;
        }
    }

    private void stalled(long busy) {
        try {
            LoopEvents.LoopStall e = new LoopEvents.LoopStall();
            e.loop = name;
            e.busy = busy;
            e.callbacks = batch;
            e.commit();
        } catch (Throwable recorderFailed) {
            // an event is worth less than the loop: never let it throw into runOnce
        }
    }

    /**
     * A callback or task turn took {@code nanos} (timed because a {@code dev.loop.Slow*} event is
     * enabled): records it if at least the loop's slow-callback threshold. Never throws.
     */
    void slowCallback(Object callback, String site, long nanos) {
        if (nanos >= slowNanos) {
            try {
                LoopEvents.SlowCallback e = new LoopEvents.SlowCallback();
                e.loop = name;
                e.callback = EngineLog.describe(callback);
                e.site = site;
                e.took = nanos;
                e.commit();
            } catch (Throwable recorderFailed) {
                // as in stalled
            }
        }
    }

    /** A task's turn took {@code nanos}, timed because {@link LoopEvents#SLOW_TASK_TURN} is enabled. Never throws. */
    public void taskTurnTook(Object task, long nanos) {
        if (nanos >= slowNanos) {
            try {
                LoopEvents.SlowTaskTurn e = new LoopEvents.SlowTaskTurn();
                e.loop = name;
                e.task = EngineLog.describe(task);
                e.took = nanos;
                e.commit();
            } catch (Throwable recorderFailed) {
                // as in stalled
            }
        }
    }

    /** The thread leaves the loop (runForever returns): the next iteration's start is not this one's end. */
    void loopLeft() {
        lastEnd = NONE;
    }

    void fromOtherThread() {
        if (on) {
            add(FROM_OTHER_THREADS, 1);
        }
    }

    void timersFired(int n) {
        if (on && n > 0) {
            add(TIMERS_FIRED, n);
        }
    }

    // ---------------------------------------------------------------- the layers above (loop thread)

    /** A task got the loop thread for one turn. */
    public void taskTurn() {
        if (on) {
            add(TASK_TURNS, 1);
        }
    }

    public void connectionOpened() {
        if (on) {
            add(CONNECTIONS_OPENED, 1);
        }
    }

    public void connectionClosed() {
        if (on) {
            add(CONNECTIONS_CLOSED, 1);
        }
    }

    public void accepted() {
        if (on) {
            add(ACCEPTS, 1);
        }
    }

    public void acceptFailed() {
        if (on) {
            add(ACCEPT_FAILURES, 1);
        }
    }

    public void bytesOut(long n) {
        if (on && n > 0) {
            add(BYTES_OUT, n);
        }
    }

    /** A stream read returned {@code n > 0} bytes: one read, and its bytes. */
    public void streamRead(long n) {
        if (on) {
            add(STREAM_READS, 1);
            add(BYTES_IN, n);
        }
    }

    /** The application called write (or sendFile) on a stream connection, and it was taken. */
    public void streamWrite() {
        if (on) {
            add(STREAM_WRITES, 1);
        }
    }

    public void datagramIn() {
        if (on) {
            add(DATAGRAMS_IN, 1);
        }
    }

    /** {@code n} datagrams were handed to the kernel (or held for its next batched send). */
    public void datagramsOut(int n) {
        if (on && n > 0) {
            add(DATAGRAMS_OUT, n);
        }
    }

    /** A kernel UDP socket bound {@code local} opened: snapshots read its drops. Loop thread. */
    public void udpOpened(InetSocketAddress local) {
        if (on) {
            Map<InetSocketAddress, Integer> s = udpSockets;
            if (s == null) {
                udpSockets = s = new ConcurrentHashMap<>();
            }
            s.merge(local, 1, Integer::sum);
            dropsFresh = false;
        }
    }

    /** It closed. Loop thread. */
    public void udpClosed(InetSocketAddress local) {
        Map<InetSocketAddress, Integer> s = udpSockets;
        if (s != null) {
            s.computeIfPresent(local, (a, n) -> n == 1 ? null : n - 1);
            dropsFresh = false;
        }
    }

    /**
     * The datagrams the kernel dropped at the loop's open UDP sockets ({@link KernelUdpDrops}): 0
     * when it has none, they are not the kernel's, or the kernel does not say. Read again once
     * {@link #DROPS_READ_INTERVAL_NANOS} passed or a socket opened or closed, else the last value.
     * Any thread (two racing readers both read the table: harmless).
     */
    public long kernelUdpDrops() {
        Map<InetSocketAddress, Integer> s = udpSockets;
        if (s == null || s.isEmpty()) {
            return 0;
        }
        long now = System.nanoTime(); // the host's time, not the loop's clock: a manual one may never move
        if (!dropsFresh || now - dropsReadAt >= DROPS_READ_INTERVAL_NANOS) {
            dropsFresh = true; // first: a socket opening meanwhile makes the next snapshot read again
            drops = KernelUdpDrops.of(s.keySet());
            dropsReadAt = now;
        }
        return drops;
    }

    public void tlsHandshake(boolean ok) {
        if (on) {
            add(ok ? TLS_HANDSHAKES : TLS_FAILURES, 1);
        }
    }

    // ---------------------------------------------------------------- reading (any thread)

    /** The counter {@code i} (one of the constants above). Any thread. */
    public long get(int i) {
        return (long) VALUE.getOpaque(values, i);
    }

    /** Adds the iteration-time histogram's counts to {@code into} (length {@link #buckets()}); returns its max. */
    public long iterationTimes(long[] into) {
        iterationTimes.copyTo(into);
        return iterationTimes.max();
    }

    /** Adds the scheduling-lag histogram's counts to {@code into}; returns its max. */
    public long lags(long[] into) {
        lags.copyTo(into);
        return lags.max();
    }

    /** The length of a histogram's counts. */
    public static int buckets() {
        return Histogram.BUCKETS;
    }

    /** The largest value that lands in bucket {@code i}, what a percentile of it reports. */
    public static long bucketUpperBound(int i) {
        return Histogram.upperBound(i);
    }
}
