package dev.loop.examples;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Loops;
import dev.loop.Promise;
import java.io.PrintStream;
import java.time.Duration;
import java.util.function.Consumer;

/** {@code countdown [N] [--interval-ms MS]}: prints N, N-1, ... 1, then "liftoff", one per interval. */
public final class Countdown {
    private Countdown() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        int from = args.length > 0 && !args[0].startsWith("--") ? Integer.parseInt(args[0]) : 5;
        Duration interval = Duration.ofMillis(Long.parseLong(Main.option(args, "--interval-ms", "1000")));
        try (Loop loop = Loops.open()) {
            loop.runUntilComplete(start(loop, from, interval, out::println));
        }
        return 0;
    }

    /** Counts down on {@code loop} with timers; the future completes after "liftoff". */
    public static LoopFuture<Void> start(Loop loop, int from, Duration interval, Consumer<String> print) {
        Promise<Void> done = loop.newPromise();
        tick(loop, from, interval, print, done);
        return done;
    }

    private static void tick(Loop loop, int n, Duration interval, Consumer<String> print, Promise<Void> done) {
        if (n == 0) {
            print.accept("liftoff");
            done.complete(null);
            return;
        }
        print.accept(Integer.toString(n));
        loop.callLater(interval, () -> tick(loop, n - 1, interval, print, done));
    }
}
