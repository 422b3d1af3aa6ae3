package dev.loop.examples;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Loops;
import dev.loop.Promise;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * {@code producer-consumer [N] [--interval-ms MS]}: a producer puts N items into a bounded queue, one
 * per interval; a consumer takes them with futures, waiting when the queue is empty. Callbacks and
 * futures only: the same shape with tasks will read as straight-line code.
 */
public final class ProducerConsumer {
    /** Items the queue holds at most; a full queue makes the producer wait. */
    static final int CAPACITY = 4;

    private ProducerConsumer() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        int n = args.length > 0 && !args[0].startsWith("--") ? Integer.parseInt(args[0]) : 10;
        Duration interval = Duration.ofMillis(Long.parseLong(Main.option(args, "--interval-ms", "100")));
        try (Loop loop = Loops.open()) {
            loop.runUntilComplete(start(loop, n, interval, out::println));
        }
        return 0;
    }

    /** A queue whose take() and put() return futures. Not thread-safe: loop thread only. */
    static final class LoopQueue<T> {
        private final Loop loop;
        private final ArrayDeque<T> items = new ArrayDeque<>();
        private final ArrayDeque<Promise<T>> takers = new ArrayDeque<>();
        private final ArrayDeque<Promise<Void>> putters = new ArrayDeque<>();
        private final int capacity;

        LoopQueue(Loop loop, int capacity) {
            this.loop = loop;
            this.capacity = capacity;
        }

        LoopFuture<Void> put(T item) {
            Promise<Void> p = loop.newPromise();
            if (!takers.isEmpty()) {
                takers.poll().complete(item);
                p.complete(null);
            } else if (items.size() < capacity) {
                items.add(item);
                p.complete(null);
            } else {
                items.add(item); // held, but the producer waits until there is room
                putters.add(p);
            }
            return p;
        }

        LoopFuture<T> take() {
            Promise<T> p = loop.newPromise();
            if (items.isEmpty()) {
                takers.add(p);
            } else {
                p.complete(items.poll());
                if (!putters.isEmpty() && items.size() <= capacity) {
                    putters.poll().complete(null);
                }
            }
            return p;
        }
    }

    /** Runs both sides; the future completes when the consumer has every item. */
    public static LoopFuture<Void> start(Loop loop, int n, Duration interval, Consumer<String> print) {
        LoopQueue<Integer> queue = new LoopQueue<>(loop, CAPACITY);
        Promise<Void> done = loop.newPromise();
        produce(loop, queue, 1, n, interval, print);
        consume(queue, 0, n, print, done);
        return done;
    }

    private static void produce(Loop loop, LoopQueue<Integer> q, int i, int n, Duration interval, Consumer<String> print) {
        if (i > n) {
            return;
        }
        print.accept("produced " + i);
        q.put(i).onDone(f -> loop.callLater(interval, () -> produce(loop, q, i + 1, n, interval, print)));
    }

    private static void consume(LoopQueue<Integer> q, int got, int n, Consumer<String> print, Promise<Void> done) {
        if (got == n) {
            print.accept("consumed all " + n);
            done.complete(null);
            return;
        }
        q.take().onDone(f -> {
            print.accept("consumed " + f.result());
            consume(q, got + 1, n, print, done);
        });
    }
}
