package dev.loop.examples;

import dev.loop.Async;
import dev.loop.sync.AsyncQueue;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.sync.QueueClosedException;
import dev.loop.Task;
import java.io.PrintStream;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * {@code demo [--scale-ms MS]}: the classic pair of coroutine demos as tasks on one loop thread.
 *
 * <ol>
 *   <li>countdown(5) sleeping 1 unit per step and countup(20) sleeping 0.2 units per step
 *       interleave in time order;</li>
 *   <li>a producer puts 10 items into a bounded queue (capacity 2) and closes it; a consumer takes
 *       until the queue says it is closed and drained.</li>
 * </ol>
 * Each line says at what loop time (in units) it was printed, so the interleaving can be read.
 */
public final class Demo {
    private Demo() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Duration unit = Duration.ofMillis(Long.parseLong(Main.option(args, "--scale-ms", "100")));
        try (Loop loop = Loops.open(LoopOptions.defaults())) {
            out.println("loop on backend " + loop.backendName() + " with " + loop.timersName() + " timers");
            loop.runUntilComplete(loop.spawn(() -> {
                runAll(loop, unit, out::println);
                return null;
            }));
        }
        return 0;
    }

    /** Both demos, one after the other, printing through {@code print}. */
    public static void runAll(Loop loop, Duration unit, Consumer<String> print) {
        long start = loop.time();
        Consumer<String> stamped = s -> print.accept(String.format("%6.1f  %s",
                (loop.time() - start) / (double) unit.toNanos(), s));
        stamped.accept("-- countdown(5) and countup(20), interleaved");
        Task<Void> down = loop.spawn(() -> {
            for (int n = 5; n > 0; n--) {
                stamped.accept("countdown " + n);
                Async.sleep(unit);
            }
            return null;
        });
        Task<Void> up = loop.spawn(() -> {
            for (int n = 0; n < 20; n++) {
                stamped.accept("          countup " + n);
                Async.sleep(unit.dividedBy(5));
            }
            return null;
        });
        Async.await(down);
        Async.await(up);

        stamped.accept("-- producer/consumer over a bounded queue");
        AsyncQueue<Integer> queue = new AsyncQueue<>(2);
        Task<Void> producer = loop.spawn(() -> {
            for (int i = 1; i <= 10; i++) {
                queue.put(i); // suspends while the queue is full
                stamped.accept("produced " + i);
                Async.sleep(unit.dividedBy(10));
            }
            queue.close();
            stamped.accept("producer closed the queue");
            return null;
        });
        Task<Integer> consumer = loop.spawn(() -> {
            int sum = 0;
            while (true) {
                int item;
                try {
                    item = queue.take(); // suspends while the queue is empty
                } catch (QueueClosedException drained) {
                    break;
                }
                sum += item;
                stamped.accept("          consumed " + item);
                Async.sleep(unit.dividedBy(4));
            }
            stamped.accept("consumer saw the queue closed and drained; sum = " + sum);
            return sum;
        });
        Async.await(producer);
        Async.await(consumer);
    }
}
