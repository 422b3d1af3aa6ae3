package dev.loop.timerwheel;

import dev.loop.heap.HeapTimerQueue;
import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A quick wheel-vs-heap timing for docs/adr/0002-timer-wheel.md, run by hand (not a test; the
 * JMH benchmarks belong in loop-bench):
 * {@code java -cp loop-api/target/classes:loop-timerwheel/target/classes:loop-timerwheel/target/test-classes
 * dev.loop.timerwheel.TimerWheelBench} ({@code -Dbench.wheelSize=64} to try another shape). Prints the median of {@link #ROUNDS} rounds after
 * {@link #WARMUP} rounds, in nanoseconds per timer.
 */
public final class TimerWheelBench {
    private static final int WARMUP = 5;
    private static final int ROUNDS = 7;
    /** Due timers handed out per expire call, as the engine's default cap. */
    private static final int LIMIT = 4096;
    private static final long MAX_DELAY = TimeUnit.SECONDS.toNanos(60);

    private static final class Node extends TimerNode {
        Node(long deadline) {
            super(deadline);
        }
    }

    private TimerWheelBench() {
    }

    public static void main(String[] args) {
        for (int n : new int[] {10_000, 1_000_000}) {
            Node[] nodes = new Node[n];
            SplittableRandom rnd = new SplittableRandom(n);
            for (int i = 0; i < n; i++) {
                nodes[i] = new Node(rnd.nextLong(TimeUnit.MILLISECONDS.toNanos(1), MAX_DELAY));
            }
            int size = Integer.getInteger("bench.wheelSize", TimerWheel.DEFAULT_WHEEL_SIZE);
            run("wheel", n, nodes, () -> new TimerWheel(TimerWheel.DEFAULT_TICK_NANOS, size));
            run("heap ", n, nodes, HeapTimerQueue::new);
        }
    }

    private static void run(String name, int n, Node[] nodes, Supplier<TimerQueue> factory) {
        double[] schedule = new double[ROUNDS];
        double[] fire = new double[ROUNDS];
        double[] cancel = new double[ROUNDS];
        long[] sink = new long[1];
        Consumer<TimerNode> count = x -> sink[0]++;
        for (int r = -WARMUP; r < ROUNDS; r++) {
            TimerQueue q = factory.get();
            q.expire(0, LIMIT, count);
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                nodes[i].sequence(i);
                q.add(nodes[i]);
            }
            long t1 = System.nanoTime();
            drain(q, count);
            long t2 = System.nanoTime();

            TimerQueue c = factory.get();
            c.expire(0, LIMIT, count);
            long t3 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                c.add(nodes[i]);
            }
            for (int i = 0; i < n; i++) {
                if (i % 10 != 0) {
                    c.remove(nodes[i]);
                }
            }
            long t4 = System.nanoTime();
            drain(c, count);
            if (r >= 0) {
                schedule[r] = (t1 - t0) / (double) n;
                fire[r] = (t2 - t1) / (double) n;
                cancel[r] = (t4 - t3) / (double) n;
            }
        }
        System.out.printf("%s n=%,9d  schedule %6.1f ns  fire %6.1f ns  schedule+cancel-90%% %6.1f ns per timer  (%d)%n",
                name, n, median(schedule), median(fire), median(cancel), sink[0] % 10);
    }

    /** Fires everything as a loop on an auto-advancing clock would: sleep to nextDeadline, expire. */
    private static void drain(TimerQueue q, Consumer<TimerNode> sink) {
        long now = 0;
        while (q.size() > 0) {
            now = Math.max(now, q.nextDeadline());
            q.expire(now, LIMIT, sink);
        }
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
