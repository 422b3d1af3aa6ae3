package dev.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Several loops, each running on a thread of its own: the way to use every core with loops that
 * stay single-threaded ({@code dev.loop.net.Net.listen(group, ...)} serves a port on all of them). Thread-safe: every method may be
 * called from any thread that is not one of the group's loops (the blocking ones wait for the
 * loops, and a loop waiting for itself would never return).
 *
 * <p>Each loop is an ordinary {@link Loop}: reach it with {@link #loops()} or {@link #next()} and
 * hand it work with {@link Loop#callSoon}. See docs/adr/0005-loop-group.md.
 */
public final class LoopGroup implements AutoCloseable {

    private static final AtomicInteger GROUPS = new AtomicInteger();

    private final List<Loop> loops;
    private final List<Thread> threads;
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean closing;

    private LoopGroup(int n, LoopOptions options) {
        int id = GROUPS.incrementAndGet();
        List<Loop> ls = new ArrayList<>(n);
        List<Thread> ts = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                ls.add(Loops.open(options));
            }
        } catch (RuntimeException e) {
            ls.forEach(Loop::close);
            throw e;
        }
        for (int i = 0; i < n; i++) {
            Loop loop = ls.get(i);
            ts.add(Thread.ofPlatform().name("loop-" + id + "-" + i).start(() -> runUntilClosed(loop)));
        }
        this.loops = List.copyOf(ls);
        this.threads = List.copyOf(ts);
    }

    /** One loop per available processor on the best backend. */
    public static LoopGroup open() {
        return open(Runtime.getRuntime().availableProcessors(), LoopOptions.defaults());
    }

    /**
     * {@code n} loops opened with {@code options}, each running on its own platform thread.
     *
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public static LoopGroup open(int n, LoopOptions options) {
        if (n < 1) {
            throw new IllegalArgumentException("a group needs at least one loop: " + n);
        }
        return new LoopGroup(n, Objects.requireNonNull(options, "options"));
    }

    private void runUntilClosed(Loop loop) {
        try {
            // stop() from elsewhere only ends one run: the group decides when its loops end.
            while (!closing && !Thread.currentThread().isInterrupted()) {
                loop.runForever();
            }
        } finally {
            loop.close();
        }
    }

    /** The loops, in a fixed order. */
    public List<Loop> loops() {
        return loops;
    }

    public int size() {
        return loops.size();
    }

    /** The loops in turn (round-robin), for spreading client connections or work. */
    public Loop next() {
        return loops.get(Math.floorMod(next.getAndIncrement(), loops.size()));
    }

    /** Each loop's {@linkplain Loop#metrics() metrics}, in the order of {@link #loops()}. Any thread. */
    public List<LoopMetrics> metricsPerLoop() {
        List<LoopMetrics> all = new ArrayList<>(loops.size());
        for (Loop l : loops) {
            all.add(l.metrics());
        }
        return all;
    }

    /** The loops' metrics summed ({@link LoopMetrics#sum}). Any thread. */
    public LoopMetrics metrics() {
        return LoopMetrics.sum(metricsPerLoop());
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closing;
    }

    /**
     * Stops every loop and waits until each has closed (its sockets closed, its pending futures
     * failed, as {@link Loop#close()} does). Idempotent.
     */
    @Override
    public void close() {
        closing = true;
        for (Loop loop : loops) {
            loop.stop();
        }
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LoopGroup[" + loops.size() + " loops on " + loops.get(0).backendName() + (closing ? ", closed" : "") + "]";
    }
}
