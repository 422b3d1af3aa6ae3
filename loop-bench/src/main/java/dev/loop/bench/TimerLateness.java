package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * How late timers fire on a loop that is busy with callbacks: N timers (default 20,000) with
 * random delays over 2 s, while a chain of callbacks keeps the loop busy (each one spins for
 * {@value #BUSY_MICROS} µs and schedules the next). Reports lateness (fire time minus deadline)
 * percentiles per timer strategy, measured side by side in one process.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp loop-bench/target/benchmarks.jar dev.loop.bench.TimerLateness \
 *      [--timers N] [--backend select|epoll]
 * </pre>
 */
public final class TimerLateness {
    static final long BUSY_MICROS = 50;
    static final long SPREAD_MILLIS = 2_000;

    private TimerLateness() {
    }

    public static void main(String[] args) {
        int n = args.length > 1 && args[0].equals("--timers") ? Integer.parseInt(args[1]) : 20_000;
        String backend = null;
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--backend")) {
                backend = args[i + 1];
            }
        }
        for (int round = 0; round < 2; round++) { // the first round warms the JIT up
            for (String timers : new String[] {"heap", "wheel"}) {
                long[] late = measure(LoopOptions.defaults().withBackend(backend).withTimers(timers), n);
                if (round == 1) {
                    Arrays.sort(late);
                    System.out.printf("%-5s %d timers, loop busy: lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms, early %d%n",
                            timers, n, ms(late[n / 2]), ms(late[(int) (n * 0.99)]), ms(late[n - 1]),
                            Arrays.stream(late).filter(l -> l < 0).count());
                }
            }
        }
    }

    private static long[] measure(LoopOptions options, int n) {
        long[] late = new long[n];
        try (Loop loop = Loops.open(options)) {
            Promise<Void> allFired = loop.newPromise();
            int[] fired = {0};
            boolean[] busy = {true};
            Runnable[] work = new Runnable[1];
            work[0] = () -> {
                long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(BUSY_MICROS);
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                if (busy[0]) {
                    loop.callSoon(work[0]);
                }
            };
            SplittableRandom rnd = new SplittableRandom(7);
            loop.callSoon(() -> {
                long now = loop.time();
                for (int i = 0; i < n; i++) {
                    int id = i;
                    long deadline = now + TimeUnit.MICROSECONDS.toNanos(rnd.nextLong(SPREAD_MILLIS * 1000));
                    loop.callAt(deadline, () -> {
                        late[id] = loop.time() - deadline;
                        if (++fired[0] == n) {
                            busy[0] = false;
                            allFired.complete(null);
                        }
                    });
                }
                loop.callSoon(work[0]);
            });
            loop.runUntilComplete(allFired);
        }
        return late;
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
